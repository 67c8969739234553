"""The red-team corpus beyond `tests/security_corpus.py`, one module per kind of attack (or of
benign action), each owning its lists; `tests/security_corpus.py` gathers them."""
