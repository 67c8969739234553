"""Lab infrastructure shared by the CLI (`starter/`) and the experiments (`experiments/`): the
task catalog, building a run's request, the embedded Temporal dev server, child processes that
die with their parent, and the choice of a model provider (including the local llama.cpp
server and the weights it serves).

The package itself imports nothing, so a command loads only the part it uses.
"""
