"""Loading what is known of a run: its ledger file (read and chain-verified) and its Temporal
history (a `temporal workflow show -o json` file, or fetched from the server: `fetch.py`).

Input a person must fix (a file that is not a history, a history of another workflow type)
raises StarterError with one line that says what is wrong.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from google.protobuf.json_format import ParseError
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowHistory

from agent.artifacts import ArtifactStore
from agent.ledger import read_events, verify_ledger
from contracts.errors import StarterError
from lab.invariants.history_story import history_story
from lab.invariants.ledger_story import ledger_story
from lab.invariants.report import Evidence
from workflows import AgentRunWorkflow

# The type name Temporal gives the lab's workflow (@workflow.defn names it after its class).
AGENT_RUN = AgentRunWorkflow.__name__


def read_history(path: Path) -> list[HistoryEvent]:
    """One generation's events from a history file."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        reason = error.strerror if isinstance(error, OSError) else "not UTF-8 text"
        raise StarterError(f"cannot read history file {path}: {reason}") from None
    return parse_history(text, str(path))


def parse_history(text: str, where: str) -> list[HistoryEvent]:
    """The events of a history in Temporal's JSON form (`{"events": [...]}`), checked to be an
    agent run's from its start."""
    try:
        document = json.loads(text)
    except ValueError as error:
        raise StarterError(f"{where} is not a Temporal history: not JSON ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("events"), list):
        raise StarterError(f"{where} is not a Temporal history: no `events` list (`temporal workflow show -o json`)")
    try:
        events = list(WorkflowHistory.from_json("", document).events)
    except (ParseError, ValueError, TypeError, KeyError) as error:
        said = " ".join(str(error).split())[:160]
        raise StarterError(f"{where} is not a Temporal history: its events do not parse ({said})") from None
    require_agent_run(events, where)
    return events


def require_agent_run(events: Sequence[HistoryEvent], where: str) -> None:
    if not events:
        raise StarterError(f"{where} is not a Temporal history: it holds no events")
    if events[0].event_type != EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        raise StarterError(f"{where} is not a whole Temporal history: it does not begin with the workflow's start")
    kind = events[0].workflow_execution_started_event_attributes.workflow_type.name
    if kind != AGENT_RUN:
        said = f"{where} is the history of a {kind or 'nameless'} workflow"
        raise StarterError(f"{said}, not of an agent run ({AGENT_RUN})")


def gather(
    run_id: str,
    ledger: Path | None,
    generations: Sequence[Sequence[HistoryEvent]] | None,
    artifacts: ArtifactStore,
    *,
    history_from: str = "",
    notes: Sequence[str] = (),
) -> Evidence:
    """The evidence of one run from what was found of it (either source may be missing); its
    notes say first what each source was. `artifacts`: the store the history's payloads held by
    reference are read from. Raises StarterError when a ledger file exists but cannot be read."""
    ledger_told, chain = None, None
    said: list[str] = []
    if ledger is not None:
        try:
            chain = verify_ledger(ledger)
            ledger_told = ledger_story(read_events(ledger))
        except OSError as error:
            raise StarterError(f"cannot read ledger {ledger}: {error.strerror}") from None
        said.append(f"ledger: {ledger}, {_count(len(ledger_told.line_hashes), 'event')}")
        if chain.torn_tail_bytes:
            said.append(f"the ledger ends in a torn write of {chain.torn_tail_bytes} bytes (a crash; not an event)")
    history_told = None
    if generations:
        history_told = history_story(generations, artifacts)
        events = sum(len(events) for events in generations)
        where = f", {history_from}" if history_from else ""
        said.append(f"history: {_count(len(generations), 'generation')}, {_count(events, 'event')}{where}")
    return Evidence(run_id=run_id, ledger=ledger_told, chain=chain, history=history_told, notes=(*said, *notes))


def _count(number: int, what: str) -> str:
    return f"{number} {what}{'' if number == 1 else 's'}"
