"""A run's story as its Temporal history tells it: the workflow's input, what each activity was
asked and returned, the local activities' markers, the approval updates and how the run ended.

Which step an event belongs to: an activity's input names it when it has one (propose, execute,
record-then-propose); a local activity's input is not in the history, so its step is read from
the summary `workflows/calls.py` gives it ("step 3: verify ..."), else it is the step last
proposed. Whether a step committed or rolled back is in the summary of the call that recorded
it ("step 3: checkpoint and record" / "roll back and record"): that call's input is a local
activity's, or held by reference.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from temporalio.api.common.v1 import Payloads
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

from agent.artifacts import ArtifactStore
from contracts import (
    AppendLedgerResult,
    CompileGoalResult,
    DraftPlanResult,
    ExecuteAndCheckInput,
    ExecutedAndChecked,
    ExecuteToolInput,
    PostconditionResult,
    ProposeActionInput,
    ProposeActionResult,
    RecordedThenProposed,
    RecordThenProposeInput,
    RunRequest,
    RunResult,
    ToolResult,
    Verdict,
    VerifiedRead,
)
from contracts.approval import ApprovalDecision
from lab.invariants.payloads import UNREADABLE, decode, first
from lab.invariants.story import Carried, Cite, LedgerMark, RunStory, StepStory

_STEP = re.compile(r"^step (\d+):")
_RECORD = re.compile(r"step (\d+): (checkpoint|roll back) and record")
NOT_COMPLETED = "AgentRunNotCompleted"  # workflows/outcome.py: a run that failed its task


def history_story(generations: Sequence[Sequence[HistoryEvent]], artifacts: ArtifactStore) -> RunStory:
    """The generations of one run, first to last (one, unless it continued as new); `artifacts`:
    the store its payloads held by reference are read from (the workers')."""
    story = RunStory(source="history")
    for number, events in enumerate(generations, 1):
        _Generation(story, number, artifacts).read(events)
    return story


class _Generation:
    def __init__(self, story: RunStory, number: int, artifacts: ArtifactStore) -> None:
        self.story = story
        self.number = number
        self.artifacts = artifacts
        self.scheduled: dict[int, tuple[str, int | None]] = {}  # event id -> (activity, step)
        self.current: int | None = None  # the step last proposed
        self.handlers: dict[int, Callable[[HistoryEvent, Cite], None]] = {
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED: self._started,
            EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: self._scheduled,
            EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: self._completed,
            EventType.EVENT_TYPE_MARKER_RECORDED: self._marker,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_COMPLETED: self._decided,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED: self._returned,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_FAILED: self._failed,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW: self._continued,
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TERMINATED: self._ended_by("TERMINATED"),
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_CANCELED: self._ended_by("CANCELED"),
            EventType.EVENT_TYPE_WORKFLOW_EXECUTION_TIMED_OUT: self._ended_by("TIMED_OUT"),
        }

    def read(self, events: Sequence[HistoryEvent]) -> None:
        for event in events:
            handler = self.handlers.get(event.event_type)
            if handler is None:
                continue
            at = self.story.cite(event.event_id, self.number)
            try:
                handler(event, at)
            except UNREADABLE as error:
                self.story.unreadable.append(f"{at}: {error}")
                if (step := self._step_of(event)) is not None:
                    self.story.step(step).unread = True

    def _step_of(self, event: HistoryEvent) -> int | None:
        """The step an event belongs to, as far as it can be told without reading its payloads."""
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
            scheduled = event.activity_task_completed_event_attributes.scheduled_event_id
            return self.scheduled.get(scheduled, ("", None))[1]
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED:
            return _summary_step(event, self.artifacts) or self.current
        return _summary_step(event, self.artifacts)

    def _step(self, number: int) -> StepStory:
        self.current = max(number, self.current or 0)
        return self.story.step(number)

    # --- the run -------------------------------------------------------------------------------

    def _started(self, event: HistoryEvent, at: Cite) -> None:
        request = first(event.workflow_execution_started_event_attributes.input, RunRequest, self.artifacts)
        if request is None or self.number > 1:
            return  # a later generation goes on with the story the first one began
        story = self.story
        story.run_id, story.budget = request.run_id, request.budget
        if (resumed := request.resume) is not None:
            story.subtasks = resumed.plan.subtasks if resumed.plan else []
            story.carried = Carried(
                usage=resumed.usage,
                steps=resumed.step,
                subtask_id=resumed.subtask.id,
                subtask_steps=len(resumed.subtask.turns),
                subtask_usage=resumed.subtask.usage,
            )

    def _returned(self, event: HistoryEvent, at: Cite) -> None:
        # Runs of builds before runs-not-completed-fail-the-workflow (docs/decisions/0003, 0006)
        # returned whatever their outcome; the result says which. Ended first: if the result cannot be read, the run
        # still ended, its outcome unknown.
        self._end(None, at)
        result = first(event.workflow_execution_completed_event_attributes.result, RunResult, self.artifacts)
        self._end(result.outcome.value if result else None, at)

    def _failed(self, event: HistoryEvent, at: Cite) -> None:
        info = event.workflow_execution_failed_event_attributes.failure.application_failure_info
        if info.type != NOT_COMPLETED:
            # The workflow's own failure (a bug, a non-determinism), not a run's outcome.
            self._end("WORKFLOW_FAILED", at)
            return
        self._end(None, at)  # a run that failed its task; which outcome is in the details
        result = first(info.details, RunResult, self.artifacts)
        self._end(result.outcome.value if result else None, at)

    def _continued(self, event: HistoryEvent, at: Cite) -> None:
        self.story.outcome, self.story.outcome_at, self.story.ended = None, None, False

    def _ended_by(self, how: str) -> Callable[[HistoryEvent, Cite], None]:
        return lambda event, at: self._end(how, at)

    def _end(self, outcome: str | None, at: Cite) -> None:
        self.story.outcome, self.story.outcome_at, self.story.ended = outcome, at, True

    # --- activities ----------------------------------------------------------------------------

    def _scheduled(self, event: HistoryEvent, at: Cite) -> None:
        attributes = event.activity_task_scheduled_event_attributes
        name, step = attributes.activity_type.name, _summary_step(event, self.artifacts)
        self.scheduled[event.event_id] = (name, step)  # before its input is read, which may fail
        if name == "propose_action":
            asked = first(attributes.input, ProposeActionInput, self.artifacts)
            step = asked.step if asked else None
            self._proposed(step, asked.subtask.id if asked and asked.subtask else None, at)
        elif name == "record_then_propose":
            step = self._record_then_propose(event, at)
        elif name in ("execute_tool", "execute_and_check"):
            execution = self._execution(name, attributes.input)
            step = execution.step if execution else None
            if execution is not None:
                told = self._step(execution.step)
                told.ran, told.result_at = execution.proposal, at
        # With the step its input named; a check's is its summary's ("check the goal's
        # acceptance", which is no step's, names none).
        self.scheduled[event.event_id] = (name, step)

    def _record_then_propose(self, event: HistoryEvent, at: Cite) -> int | None:
        """The last step's record (its outcome, cited here) and the next step's proposal."""
        try:
            asked = first(event.activity_task_scheduled_event_attributes.input, RecordThenProposeInput, self.artifacts)
        except UNREADABLE:
            asked = None  # held by reference and not in this store: the summary says enough
        if asked is not None:
            if asked.record is not None and asked.record.action != "none":
                self._recorded(asked.record.step, asked.record.action, at)
            subtask_id = asked.propose.subtask.id if asked.propose.subtask else None
            self._proposed(asked.propose.step, subtask_id, at)
            return asked.propose.step
        self._record_from_summary(event, at)
        step = _summary_step(event, self.artifacts)
        self._proposed(step, None, at)
        return step

    def _proposed(self, step: int | None, subtask_id: str | None, at: Cite) -> None:
        if step is not None:
            told = self._step(step)
            told.subtask_id, told.proposal_at = subtask_id or told.subtask_id, at

    def _execution(self, name: str, payloads: Payloads) -> ExecuteToolInput | None:
        if name == "execute_tool":
            return first(payloads, ExecuteToolInput, self.artifacts)
        both = first(payloads, ExecuteAndCheckInput, self.artifacts)
        return both.execution if both else None

    def _completed(self, event: HistoryEvent, at: Cite) -> None:
        attributes = event.activity_task_completed_event_attributes
        name, step = self.scheduled.get(attributes.scheduled_event_id, ("", None))
        result = attributes.result
        if name == "compile_goal" and (compiled := first(result, CompileGoalResult, self.artifacts)) is not None:
            self.story.carried.usage += compiled.usage + compiled.failed_attempts
        elif name in ("plan", "draft_plan") and (planned := first(result, DraftPlanResult, self.artifacts)) is not None:
            self.story.carried.usage += planned.usage + planned.failed_attempts
            self.story.subtasks = planned.plan.topological_order()
        if step is None:
            return
        told = self._step(step)
        if name in ("propose_action", "record_then_propose"):
            proposed = _proposed(name, result, self.artifacts)
            if proposed is not None:
                told.proposal, told.usage = proposed.proposal, proposed.usage + proposed.failed_attempts
        elif name == "execute_tool":
            told.result = first(result, ToolResult, self.artifacts)
        elif name == "execute_and_check":
            both = first(result, ExecutedAndChecked, self.artifacts)
            if both is not None:
                told.result = both.result
                if both.check is not None:
                    told.check_passed, told.check_at = both.check.passed, at
        elif (
            name == "check_postconditions" and (check := first(result, PostconditionResult, self.artifacts)) is not None
        ):
            told.check_passed, told.check_at = check.passed, at

    # --- local activities and updates ----------------------------------------------------------

    def _marker(self, event: HistoryEvent, at: Cite) -> None:
        attributes = event.marker_recorded_event_attributes
        if attributes.marker_name != "core_local_activity" or "result" not in attributes.details:
            return  # a patch marker, or a local activity that failed
        details = decode(attributes.details["data"].payloads[0], self.artifacts)
        name = details.get("activity_type") if isinstance(details, dict) else None
        result = attributes.details["result"]
        if name == "append_ledger":
            if (appended := first(result, AppendLedgerResult, self.artifacts)) is not None:
                self.story.ledger_marks.append(LedgerMark(seq=appended.last_seq, hash=appended.last_hash, at=at))
            return
        if name == "record_step":
            self._record_from_summary(event, at)
            return
        step = _summary_step(event, self.artifacts) or self.current
        if step is None:
            return
        told = self._step(step)
        if name == "verify_proposal":
            told.verdict, told.verdict_at = first(result, Verdict, self.artifacts), at
        elif name == "verify_and_read" and (verified := first(result, VerifiedRead, self.artifacts)) is not None:
            told.verdict, told.verdict_at = verified.verdict, at
            if verified.result is not None:
                told.ran, told.result, told.result_at = told.proposal, verified.result, at
        elif name == "execute_read_only_tool" and (read := first(result, ToolResult, self.artifacts)) is not None:
            told.ran, told.result, told.result_at = told.proposal, read, at

    def _decided(self, event: HistoryEvent, at: Cite) -> None:
        outcome = event.workflow_execution_update_completed_event_attributes.outcome
        if not outcome.HasField("success"):
            return  # a refused update changed nothing
        decision = first(outcome.success, ApprovalDecision, self.artifacts)
        if decision is not None:
            told = self._step(decision.step)
            told.approval, told.approval_at = decision, at

    def _record_from_summary(self, event: HistoryEvent, at: Cite) -> None:
        if (found := _RECORD.search(_summary(event, self.artifacts))) is not None:
            self._recorded(int(found.group(1)), "commit" if found.group(2) == "checkpoint" else "rollback", at)

    def _recorded(self, step: int, action: str, at: Cite) -> None:
        if step <= self.story.carried.steps:
            # The last step of a generation this history does not hold (its record waited, and
            # went on with the state): its other facts are there, so it is not judged here.
            return
        told = self.story.step(step)
        told.outcome, told.outcome_at = ("commit" if action == "commit" else "rollback"), at


def _proposed(name: str, result: Payloads, artifacts: ArtifactStore) -> ProposeActionResult | None:
    if name == "propose_action":
        return first(result, ProposeActionResult, artifacts)
    both = first(result, RecordedThenProposed, artifacts)
    return both.proposed if both else None


def _summary(event: HistoryEvent, artifacts: ArtifactStore) -> str:
    if not event.HasField("user_metadata") or not event.user_metadata.HasField("summary"):
        return ""
    text = decode(event.user_metadata.summary, artifacts)
    return text if isinstance(text, str) else ""


def _summary_step(event: HistoryEvent, artifacts: ArtifactStore) -> int | None:
    found = _STEP.match(_summary(event, artifacts))
    return int(found.group(1)) if found else None
