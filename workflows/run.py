"""What every part of a durable run works on: its request, its whole state as one typed
object (RunSnapshot), the state machine that guards each move, its ledger entries, and the
decision of a person it may be waiting for.

Workflow code: deterministic, no I/O; time is `workflow.now()`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import NoReturn

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from contracts import DiskUse, RunRequest, RunSnapshot, RunState
    from contracts.approval import ApprovalDecision
    from contracts.errors import IllegalTransition
    from workflows import approval_memo
    from workflows.ledger_entries import EntryMaker
    from workflows.patches import deprecate_retired
    from workflows.state_machine import StateMachine, as_run_failure


@dataclass
class Run:
    request: RunRequest
    snapshot: RunSnapshot
    fsm: StateMachine
    entries: EntryMaker
    # Set by the approve or deny update, taken by the step that waits for it.
    decision: ApprovalDecision | None = None

    @classmethod
    def begin(cls, request: RunRequest) -> Run:
        """A new run, or the next generation of one that continued as new: it starts where the
        last one stopped, between two steps of a subtask."""
        snapshot = request.resume or RunSnapshot()
        entries = EntryMaker(workflow.info().workflow_id)
        # In the workflow's first task (it is built by @workflow.init): see workflows.patches.
        deprecate_retired()
        approval_memo.announce()
        return cls(request, snapshot, StateMachine(snapshot.state), entries)

    @property
    def run_id(self) -> str:
        return workflow.info().workflow_id

    def move(self, target: RunState) -> None:
        try:
            self.fsm.advance(target)
        except IllegalTransition as error:
            raise as_run_failure(error) from None
        self.snapshot.state = target
        where = f" · subtask {self.snapshot.subtask.id}" if self.snapshot.subtask.id else ""
        workflow.set_current_details(f"**{target}** · step {self.snapshot.step}{where}")

    def disk(self) -> DiskUse:
        """What the run holds on the host's disk, for its budget."""
        return self.snapshot.disk

    def elapsed_s(self, since: datetime | None) -> float:
        return (workflow.now() - since).total_seconds() if since else 0.0

    async def continue_as_new(self) -> NoReturn:
        """Hand the whole state to a fresh history: it is the next generation's input."""
        await workflow.wait_condition(workflow.all_handlers_finished)
        now = workflow.now()
        subtask = self.snapshot.subtask.model_copy(update={"started_at": self.snapshot.subtask.started_at or now})
        carried = self.snapshot.model_copy(
            update={
                "generation": self.snapshot.generation + 1,
                "started_at": self.snapshot.started_at or now,
                "subtask": subtask,
            }
        )
        workflow.continue_as_new(self.request.model_copy(update={"resume": carried}))
