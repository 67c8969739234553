"""`read_events`: the events of a ledger as a reader sees them, broken chain or not."""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from agent.ledger.scan import split_lines
from contracts.ledger import LedgerEvent


def read_events(path: Path) -> list[LedgerEvent]:
    """Every complete line that parses as an event, in file order. Lines that do not parse and a
    torn tail are left out: a replay shows what can be read, and `verify_ledger` says where the
    chain breaks. Raises OSError when the file cannot be read."""
    complete, _torn_tail = split_lines(path.read_bytes())
    events: list[LedgerEvent] = []
    for line in complete:
        try:
            events.append(LedgerEvent.model_validate_json(line))
        except ValidationError:
            continue
    return events
