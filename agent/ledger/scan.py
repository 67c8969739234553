"""One pass over a ledger file's bytes that checks every chain rule, for `verify` and `append`.

A line is complete when it ends with a newline. Bytes after the last newline are a *torn tail*:
a write cut short by a crash. They are not part of the chain; `append` quarantines them.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

from pydantic import BaseModel, JsonValue, ValidationError

from agent.ledger.chain import GENESIS_HASH, event_hash
from contracts.ledger import LedgerEvent
from contracts.problems import in_one_line


class LedgerProblem(BaseModel):
    """Where a chain breaks: the 1-based line number and what is wrong with that line."""

    line: int
    reason: str


@dataclass
class ChainScan:
    """The chain as far as it verifies, and the first problem if there is one."""

    run_id: str | None = None
    last_seq: int = 0
    last_hash: str = GENESIS_HASH
    event_lines: dict[str, int] = field(default_factory=dict)  # event id -> line number
    types: Counter[str] = field(default_factory=Counter)
    problem: LedgerProblem | None = None
    complete_bytes: int = 0  # length of the prefix made of complete lines
    torn_tail: bytes = b""

    @property
    def events(self) -> int:
        return self.last_seq


def split_lines(data: bytes) -> tuple[list[bytes], bytes]:
    """The complete lines (without their newline) and the torn tail (empty when there is none)."""
    *complete, tail = data.split(b"\n")
    return complete, tail


def scan_chain(data: bytes, run_id: str | None = None) -> ChainScan:
    """Checks line by line and stops at the first problem: past a break, the chain rules say
    nothing about the lines that follow. `run_id`, when given, is the run the file must hold."""
    complete, tail = split_lines(data)
    scan = ChainScan(run_id=run_id, complete_bytes=len(data) - len(tail), torn_tail=tail)
    for number, line in enumerate(complete, 1):
        reason = _accept(scan, line, number)
        if reason is not None:
            scan.problem = LedgerProblem(line=number, reason=reason)
            break
    return scan


def scan_more(scan: ChainScan, data: bytes) -> ChainScan:
    """Goes on from a scan of a prefix that verified, over the bytes that follow it: what an
    append reads of a ledger it has checked before (O(new lines), not O(file)). Updates `scan`
    in place; line numbers go on from the prefix's (line n of a sound chain holds seq n)."""
    complete, tail = split_lines(data)
    scan.complete_bytes += len(data) - len(tail)
    scan.torn_tail = tail
    for line in complete:
        number = scan.last_seq + 1
        reason = _accept(scan, line, number)
        if reason is not None:
            scan.problem = LedgerProblem(line=number, reason=reason)
            break
    return scan


def _accept(scan: ChainScan, line: bytes, number: int) -> str | None:
    """Adds the line to the chain, or says why it does not belong there."""
    try:
        fields: JsonValue = json.loads(line)
    except UnicodeDecodeError:
        return "not UTF-8 text"
    except json.JSONDecodeError as error:
        return f"not JSON ({error.msg} at column {error.colno})"
    if not isinstance(fields, dict):
        return "not a JSON object"
    try:
        event = LedgerEvent.model_validate(fields)
    except ValidationError as error:
        return f"not a ledger event ({in_one_line(error, fields)})"
    if scan.run_id is not None and event.run_id != scan.run_id:
        return f"run_id {event.run_id!r} in a ledger of run {scan.run_id!r}"
    if event.seq != scan.last_seq + 1:
        return f"seq {event.seq} where {scan.last_seq + 1} was expected"
    if event.prev_hash != scan.last_hash:
        before = "the genesis hash" if number == 1 else f"the hash of line {number - 1}"
        return f"prev_hash is not {before}"
    if event.hash != event_hash(fields):
        return "hash does not match the event's content"
    if event.event_id in scan.event_lines:
        return f"event_id {event.event_id!r} already at line {scan.event_lines[event.event_id]}"
    scan.run_id = event.run_id
    scan.last_seq, scan.last_hash = event.seq, event.hash
    scan.event_lines[event.event_id] = number
    scan.types[event.type] += 1
    return None
