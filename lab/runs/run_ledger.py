"""A recorded run's ledger, read for a command that acts on the run (fork, diff): a run with
no ledger, or one that cannot be read, is one line (StarterError). The caller says which
ledgers it reads (its Dependencies' `ledgers`: the workers' data directory)."""

from __future__ import annotations

from agent.ledger import read_events
from agent.ledger.store import LedgerStore
from contracts import LedgerEvent
from contracts.errors import LedgerCorrupt, StarterError
from lab.runs.baseline_runs import baseline_has_no_history


def read_ledger(ledgers: LedgerStore, run_id: str) -> list[LedgerEvent]:
    path = ledgers.path(run_id)
    if not path.is_file():
        raise StarterError(baseline_has_no_history(run_id, ledgers) or f"no run {run_id!r}: no ledger at {path}")
    try:
        return read_events(path)
    except (OSError, LedgerCorrupt, ValueError) as error:
        raise StarterError(f"run {run_id!r}: its ledger cannot be read ({error})") from None
