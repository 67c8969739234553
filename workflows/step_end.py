"""Ending a step: commit (a checkpoint) or reject (a rollback), recorded in the ledger, in the
run's steps and in the model's turns (kept in the workflow's state and, for the next proposal
to refer to, in the artifact store), all in one local activity's round trip."""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from agent.step_log import Outcome, StepLog
    from contracts import ActionProposal, PostconditionResult, RunState, Subtask, ToolResult, Turn, Usage, Verdict
    from contracts.envelopes import RecordStepInput
    from contracts.tools import READ_ONLY_TOOLS
    from workflows import calls, tracing
    from workflows.run import Run


@dataclass(frozen=True)
class StepEnd:
    """How a step ended and what it left: `said` is what the model is told (for a rejection,
    also the reason)."""

    outcome: Outcome
    proposal: ActionProposal | None
    usage: Usage
    said: str
    verdict: Verdict | None = None
    result: ToolResult | None = None
    check: PostconditionResult | None = None


async def end_step(run: Run, subtask: Subtask, end: StepEnd, *, moved: bool = False, last: bool = False) -> None:
    """`moved`: the run already moved to where the step leaves it (a model that gave up).
    `last`: the step ends its subtask. Other steps that wrote nothing leave their record to the
    next proposal's activity (calls.propose): a local activity fewer a step; the record is
    still decided here, and a run that ends first writes it at its end."""
    snapshot = run.snapshot
    if not moved:
        run.move(RunState.COMMITTED if end.outcome == "committed" else RunState.REJECTED)
    if end.outcome == "rejected":
        snapshot.wasted += end.usage
    now = workflow.now()
    step = snapshot.step
    events = [run.entries.entry("proposal", now, step, task=subtask.id, proposal=end.proposal, usage=end.usage)]
    if end.verdict is not None:
        events.append(run.entries.entry("verdict", now, step, verdict=end.verdict))
    if end.result is not None:
        events.append(run.entries.entry("tool_result", now, step, tool=end.result.tool, result=end.result))
    if end.check is not None:
        events.append(run.entries.entry("postconditions", now, step, passed=end.check.passed, result=end.check))
    fault_injected = end.result is not None and end.result.fault_injected
    tracing.note_step_end(end.outcome, end.proposal.tool if end.proposal else None, end.said)
    turn = Turn(step=step, proposal=end.proposal, outcome=end.outcome, feedback=end.said, fault_injected=fault_injected)
    closing = RecordStepInput(
        run_id=run.run_id,
        workspace=snapshot.workspace,
        step=step,
        action="commit" if end.outcome == "committed" else "rollback",
        checkpoint=snapshot.checkpoint,
        message=end.proposal.describe() if end.proposal else "unusable answer",
        entries=events,
        turn=turn,
        previous=snapshot.subtask.conversation,
    )
    if not (moved or last or _may_have_written(end)):
        snapshot.pending_record = closing
    else:
        await calls.flush(run)  # (none waits: every step starts with a proposal, which wrote it)
        await calls.close_step(run, closing)
    StepLog(steps=snapshot.steps, turns=snapshot.subtask.turns).record(
        step,
        subtask.id,
        end.outcome,
        end.proposal,
        usage=end.usage,
        said=end.said,
        verdict=end.verdict,
        result=end.result.summary() if end.result else "",
        postconditions=end.check.summary() if end.check else "",
        fault_injected=fault_injected,
    )


def _may_have_written(end: StepEnd) -> bool:
    """A tool that may write ran in the step: its record (and the disk measured after its
    checkpoint or rollback) is written now, not with the next proposal, so the run's disk
    budget, checked before that proposal, reads the disk the step left."""
    return end.result is not None and end.result.tool not in READ_ONLY_TOOLS
