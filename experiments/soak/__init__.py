"""The soak: `python -m experiments.soak` (see __main__)."""
