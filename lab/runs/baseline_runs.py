"""Baseline runs, told apart from runs that are missing: a baseline run is a plain asyncio loop
(baseline/loop.py), not a workflow, so it has no Temporal history, and it writes no ledger. A
command that reads a durable run's history or ledger (fork, replay, ledger verify, diff, check)
says so in one line, rather than "no run" or "no ledger".
"""

from __future__ import annotations

import re

from agent.ledger.store import LedgerStore

# `baseline-<task>-<8 hex>` from `starter run` (lab/runs/run_request.py); `...-baseline-<scenario>-
# <index>-a<attempt>` from an experiment's trials (experiments/trials/spec.py).
_STARTED = re.compile(r"^baseline-(?P<task>.+)-[0-9a-f]{8}$")
_TRIAL = re.compile(r"-baseline-[^-]+-\d+-a\d+$")


def is_baseline_run(run_id: str) -> bool:
    return bool(_STARTED.match(run_id) or _TRIAL.search(run_id))


def baseline_has_no_history(run_id: str, ledgers: LedgerStore) -> str | None:
    """What a command that reads a durable run says of a baseline run; None for another run id."""
    if not is_baseline_run(run_id):
        return None
    said = (
        f"{run_id} is a baseline run: a plain asyncio loop with no Temporal history, so fork, replay, "
        "diff and check apply to durable runs only"
    )
    if ledgers.path(run_id).is_file():
        return f"{said}; `uv run python -m starter ledger verify {run_id}` checks its ledger"
    started = _STARTED.match(run_id)
    task = started.group("task") if started else "TASK"
    return (
        f"{said} (and it kept no ledger); for a run they apply to, run the task durable: "
        f"uv run python -m starter run --task {task} --runtime durable"
    )
