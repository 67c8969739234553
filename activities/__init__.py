"""Activities: every side effect of an agent run. The baseline calls the same functions directly.

The package itself imports nothing, so a command that needs one part (the sandbox, the
verifier) does not load the rest; `activities.registered` lists what a worker registers.
"""
