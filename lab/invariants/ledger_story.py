"""A run's story as its ledger tells it: the events the workflow asked to be written
(`workflows/ledger_entries.py`, `workflows/step_end.py`, `agent/step_records.py`), read back."""

from __future__ import annotations

from typing import TypeVar

from pydantic import BaseModel, JsonValue, ValidationError

from contracts import ActionProposal, Plan, ToolResult, Usage, Verdict
from contracts.approval import ApprovalDecision
from contracts.ledger import LedgerEvent
from lab.invariants.story import RunStory

Model = TypeVar("Model", bound=BaseModel)


def ledger_story(events: list[LedgerEvent]) -> RunStory:
    """Events in file order (the ledger's seq order). A payload that does not read as the model
    its event type promises is noted as unreadable, and its fact left out."""
    story = RunStory(source="ledger")
    for event in events:
        story.run_id = story.run_id or event.run_id
        story.line_hashes[event.seq] = event.hash
        at = story.cite(event.seq)
        payload = event.payload
        if event.step is None:
            _run_event(story, event, at.position)
            continue
        told = story.step(event.step)
        before = len(story.unreadable)
        if event.type == "proposal":
            told.subtask_id = _text(payload.get("task"))
            told.proposal = _read(story, at.position, ActionProposal, payload.get("proposal"))
            told.proposal_at = at
            told.usage = _read(story, at.position, Usage, payload.get("usage")) or Usage()
        elif event.type == "verdict":
            told.verdict, told.verdict_at = _read(story, at.position, Verdict, payload.get("verdict")), at
        elif event.type == "approval_decided":
            told.approval = _read(story, at.position, ApprovalDecision, payload.get("decision"))
            told.approval_at = at
        elif event.type == "tool_result":
            told.result, told.result_at = _read(story, at.position, ToolResult, payload.get("result")), at
        elif event.type == "postconditions":
            passed = payload.get("passed")
            told.check_passed, told.check_at = (passed if isinstance(passed, bool) else None), at
        elif event.type in ("commit", "rollback"):
            told.outcome, told.outcome_at = event.type, at
        told.unread = told.unread or len(story.unreadable) > before
    for told in story.steps:
        # The ledger writes the proposal and its result together, at the step's end: what ran
        # is what was proposed.
        told.ran = told.proposal if told.result is not None else None
    return story


def _run_event(story: RunStory, event: LedgerEvent, seq: int) -> None:
    payload = event.payload
    if event.type in ("goal_compiled", "plan_drafted"):
        story.carried.usage += _read(story, seq, Usage, payload.get("usage")) or Usage()
    if event.type == "plan_drafted" and (plan := _read(story, seq, Plan, payload.get("plan"))) is not None:
        story.subtasks = plan.topological_order()
    elif event.type == "run_finished":
        story.outcome, story.outcome_at, story.ended = _text(payload.get("outcome")), story.cite(seq), True


def _read(story: RunStory, seq: int, model: type[Model], value: JsonValue) -> Model | None:
    if value is None:
        return None
    try:
        return model.model_validate(value)
    except ValidationError:
        story.unreadable.append(f"ledger seq {seq}: its {model.__name__} does not read as one")
        return None


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None
