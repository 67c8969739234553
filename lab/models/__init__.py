"""Model serving: which model a run uses and the local llama.cpp server that serves it.

- `providers`: the provider a run uses, from CLI flags, an experiment's config or the environment.
- `local_model`: the local model's weights, from registry packages, checked by digest.
- `llama_server`: starts and stops the llama.cpp server for the local provider.
- `llama_entry`: the server's entry point, run as a script (`python lab/models/llama_entry.py`).
- `llama_sampling`: grammar-constrained sampling at one grammar check per token.
- `llama_log`: each call's timings, read from the server's log.

The package imports nothing: `llama_entry` runs without the project's dependencies loaded.
"""
