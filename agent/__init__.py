"""The agent core: what an agent step is, knowing nothing of who orchestrates it.

Tools and their registry, the command policy and verifier, sandboxes, model providers and
prompts, the effect store, the ledger, checkpoints, postcondition checks, the step log,
feedback and budgets. Both runtimes call it: the durable one through the thin Temporal
activities in `activities/`, the baseline directly. It imports no temporalio.

The package itself imports nothing, so a command that needs one part does not load the rest.
"""
