"""`python -m starter ledger verify RUN` and `python -m starter replay RUN`: a run's ledger, read
by a person. RUN is a run id (its ledger under the data directory) or a path to a .jsonl file.

`ledger verify` prints one line, the chain intact or where it breaks, and exits 0 or 1. `replay`
prints one aligned line per readable event (a proposal with its arguments), then the same line.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import JsonValue, ValidationError

from agent.dependencies_from_environment import from_environment
from agent.ledger import LedgerReport, read_events, verify_ledger
from agent.ledger.store import LedgerStore
from agent.tools.declared_order import in_declared_order
from contracts import ActionProposal
from contracts.counts import counted
from contracts.errors import StarterError
from contracts.ledger import LedgerEvent
from lab.runs.baseline_runs import baseline_has_no_history

EXIT_OK, EXIT_BROKEN = 0, 1

# What a payload may say about how its event came out, in the order shown.
OUTCOME_KEYS = ("decision", "approved", "ok", "exit_code", "passed", "outcome", "quarantine")
COLUMNS = ("SEQ", "TIME", "TYPE", "STEP", "TOOL", "OUTCOME", "WORKER")
MAX_CELL = 48
# A proposal's tool and arguments, each argument shortened as `run` shows it, the whole cut here.
MAX_ACTION = 72


def ledger_verify(run: str) -> int:
    report = _verify(_ledger_file(run, from_environment().ledgers))
    print(summary(report))
    return EXIT_OK if report.ok else EXIT_BROKEN


def replay(run: str) -> int:
    path = _ledger_file(run, from_environment().ledgers)
    try:
        events = read_events(path)
    except OSError as error:
        raise StarterError(f"cannot read {path}: {error.strerror}") from None
    rows = [COLUMNS, *(_row(event) for event in events)]
    widths = [max(len(row[column]) for row in rows) for column in range(len(COLUMNS) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        print("  ".join([*cells, row[-1]]))
    report = _verify(path)
    print(summary(report))
    return EXIT_OK if report.ok else EXIT_BROKEN


def summary(report: LedgerReport) -> str:
    """What was verified, in one line: the chain intact over its events, or where it breaks."""
    whose = f"ledger of {report.run_id}" if report.run_id else "ledger"
    events = counted(report.events, "event")
    if report.first_error is None:
        line = f"{whose}: {events}, hash chain intact ({report.path})"
    else:
        error = report.first_error
        before = f"the {events} before it verify" if report.events else "no event before it verifies"
        line = f"{whose}: hash chain BROKEN at line {error.line}: {error.reason}; {before} ({report.path})"
    if report.torn_tail_bytes:
        line += f"; torn tail of {report.torn_tail_bytes} bytes (an interrupted write; the next append quarantines it)"
    return line


def _ledger_file(run: str, ledgers: LedgerStore) -> Path:
    """RUN's ledger: the file it names, or the run's in `ledgers` (this process's data directory)."""
    if run.endswith(".jsonl") or "/" in run:
        path = Path(run)
        if not path.is_file():
            raise StarterError(f"no ledger at {path}")
        return path
    try:
        path = ledgers.path(run)
    except ValueError as error:
        raise StarterError(str(error)) from None
    if not path.is_file():
        raise StarterError(baseline_has_no_history(run, ledgers) or f"no ledger at {path}")
    return path


def _verify(path: Path) -> LedgerReport:
    try:
        return verify_ledger(path)
    except OSError as error:
        raise StarterError(f"cannot read {path}: {error.strerror}") from None


def _row(event: LedgerEvent) -> tuple[str, ...]:
    found = ((key, _find(event.payload, key)) for key in OUTCOME_KEYS)
    outcome = " ".join(f"{key}={_text(value)}" for key, value in found if value is not None)
    return (
        str(event.seq),
        event.time.isoformat(timespec="seconds"),
        event.type,
        "-" if event.step is None else str(event.step),
        _action(event) or _text(_find(event.payload, "tool")) or "-",
        outcome or "-",
        event.worker,
    )


def _action(event: LedgerEvent) -> str:
    """A proposal's tool and arguments, as `run` shows a step; "" for any other event."""
    raw = event.payload.get("proposal")
    if event.type != "proposal" or not isinstance(raw, dict):
        return ""
    try:
        shown = in_declared_order(ActionProposal.model_validate(raw)).describe()
    except ValidationError:
        return ""  # a proposal this version cannot read: its tool, as found, is shown
    return shown if len(shown) <= MAX_ACTION else shown[: MAX_ACTION - 3] + "..."


def _find(payload: dict[str, JsonValue], key: str) -> JsonValue:
    """A scalar under `key` in the payload, or in one of its objects (`payload["proposal"]["tool"]`).
    Writers shape payloads as their events need; the replay takes what it finds."""
    for value in (payload, *(nested for nested in payload.values() if isinstance(nested, dict))):
        found = value.get(key)
        if found is not None and not isinstance(found, dict | list):
            return found
    return None


def _text(value: JsonValue) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value)
    text = " ".join(text.split())  # a newline in a payload must not break the table
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 3] + "..."
