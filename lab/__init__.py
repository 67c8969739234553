"""Lab infrastructure shared by the CLI (`starter/`) and the experiments (`experiments/`), one
subpackage per subject:

- `lab.runs`: the task catalog, a run's request, starting a durable run, forking and diffing
  recorded runs.
- `lab.models`: the choice of a model provider, the local llama.cpp server and its weights.
- `lab.processes`: the embedded Temporal dev server, and child processes that die with their parent.
- `lab.invariants`: the rules every recorded run must keep, checked on its history and ledger.

The package itself imports nothing, so a command loads only the part it uses.
"""
