"""`verify_ledger`: does a ledger file hold one unbroken hash chain, and if not, where does it break."""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from agent.ledger.scan import LedgerProblem, scan_chain


class LedgerReport(BaseModel):
    path: str
    ok: bool = Field(description="every complete line verifies (a torn tail is reported, not counted against it)")
    events: int = Field(description="events that verify, in order: all of them when ok, those before the break if not")
    run_id: str | None = None
    types: dict[str, int] = Field(default_factory=dict, description="event type -> count, among the verified events")
    first_error: LedgerProblem | None = None
    torn_tail_bytes: int = Field(0, description="bytes after the last newline: a write a crash cut short")


def verify_ledger(path: Path) -> LedgerReport:
    """Checks every line: JSON, the LedgerEvent schema, seq 1..n, the prev_hash chain, each
    recomputed hash, unique event ids, one run id. Raises OSError when the file cannot be read."""
    scan = scan_chain(path.read_bytes())
    return LedgerReport(
        path=str(path),
        ok=scan.problem is None,
        events=scan.events,
        run_id=scan.run_id,
        types=dict(scan.types),
        first_error=scan.problem,
        torn_tail_bytes=len(scan.torn_tail),
    )
