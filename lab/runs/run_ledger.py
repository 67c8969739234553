"""A recorded run's ledger, read for a command that acts on the run (fork, diff): a run with
no ledger, or one that cannot be read, is one line (StarterError)."""

from __future__ import annotations

from agent.dependencies_from_environment import from_environment
from agent.ledger import read_events
from contracts import LedgerEvent
from contracts.errors import LedgerCorrupt, StarterError


def read_ledger(run_id: str) -> list[LedgerEvent]:
    path = from_environment().ledgers.path(run_id)
    if not path.is_file():
        raise StarterError(f"no run {run_id!r}: no ledger at {path}")
    try:
        return read_events(path)
    except (OSError, LedgerCorrupt, ValueError) as error:
        raise StarterError(f"run {run_id!r}: its ledger cannot be read ({error})") from None
