"""Runs: the benchmark tasks, the request that starts a run, and what is done with a recorded one.

- `catalog`: the benchmark tasks (`experiments/tasks/ID/`), loaded and checked.
- `run_request`: a task's RunRequest, the one way the starter, tests and experiments build one.
- `durable_start`: starting a durable run on Temporal.
- `run_ledger`: a recorded run's ledger, read for a command that acts on the run.
- `fork`: the request of a new run that starts from a recorded run's step K.
- `run_diff`: where two recorded runs part, step by step from their ledgers.

The package itself imports nothing, so a command loads only the part it uses.
"""
