"""How the workflow calls its activities: each with the options `activity_options` gives its
kind, and a summary the Web UI shows. Short deterministic-input work (verification, closing a
step, the ledger) runs as local activities."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from activities.execution import execute_read_only_tool
    from activities.fused import execute_and_check, record_then_propose, verify_and_read
    from activities.ledger import append_ledger
    from activities.postconditions import check_postconditions
    from activities.step_records import record_step
    from activities.verification import verify_proposal
    from agent.earlier_effects import for_rule
    from contracts import (
        ActionProposal,
        CheckPostconditionsInput,
        ExecuteAndCheckInput,
        ExecutedAndChecked,
        ExecutedCall,
        ExecuteToolInput,
        Postcondition,
        PostconditionResult,
        ProposeActionInput,
        ProposeActionResult,
        RecordThenProposeInput,
        ToolResult,
        Verdict,
        VerifiedRead,
        VerifyAndReadInput,
    )
    from contracts.approval import proposal_digest
    from contracts.effects import EarlierEffect
    from contracts.envelopes import AppendLedgerInput, RecordStepInput, RecordStepResult, VerifyProposalInput
    from contracts.ledger import LedgerEntry
    from workflows import activity_options as options
    from workflows.run import Run

In = TypeVar("In")
Out = TypeVar("Out")


async def call(fn: Callable[[In], Awaitable[Out]], arg: In, opts: options.ActivityOptions, summary: str) -> Out:
    return await workflow.execute_activity(
        fn,
        arg,
        start_to_close_timeout=opts.start_to_close,
        schedule_to_close_timeout=opts.schedule_to_close,
        heartbeat_timeout=opts.heartbeat,
        retry_policy=opts.retry,
        summary=summary,
    )


def checking(run: Run, postconditions: list[Postcondition]) -> CheckPostconditionsInput:
    return CheckPostconditionsInput(
        workspace=run.snapshot.workspace, postconditions=postconditions, world_id=run.request.world_id
    )


async def check(run: Run, postconditions: list[Postcondition], summary: str) -> PostconditionResult:
    return await call(check_postconditions, checking(run, postconditions), options.CHECK, summary)


async def execute_then_check(
    run: Run, execution: ExecuteToolInput, postconditions: list[Postcondition], summary: str
) -> ExecutedAndChecked:
    """The call, and the task's postconditions after it if it succeeded (activities/fused.py)."""
    asked = ExecuteAndCheckInput(execution=execution, check=checking(run, postconditions) if postconditions else None)
    return await call(execute_and_check, asked, options.EXECUTE_AND_CHECK, summary)


def _earlier_runs(run: Run, proposal: ActionProposal) -> list[ExecutedCall]:
    # The repeated-action check looks only at earlier runs of this very call: the verifier
    # gets those, not every call the run remembers (its input would grow with the run, and
    # the SDK stores a large local-activity input in the artifact store at every step).
    digest = proposal_digest(proposal)
    return [call for call in run.snapshot.executed if call.digest == digest]


def _earlier_effects(run: Run, proposal: ActionProposal) -> list[EarlierEffect]:
    # A subtask's child run counts its parent's effects too: they were made in the same world.
    inherited = run.request.subtask.effects if run.request.subtask is not None else []
    return for_rule(proposal, [*inherited, *run.snapshot.effects])


async def verify(run: Run, proposal: ActionProposal) -> Verdict:
    return await workflow.execute_local_activity(
        verify_proposal,
        VerifyProposalInput(
            workspace=run.snapshot.workspace,
            proposal=proposal,
            profile=run.request.profile,
            executed=_earlier_runs(run, proposal),
            effects=_earlier_effects(run, proposal),
        ),
        start_to_close_timeout=options.VERIFY.start_to_close,
        retry_policy=options.VERIFY.retry,
        summary=f"step {run.snapshot.step}: verify {proposal.describe()}",
    )


async def verify_then_read(run: Run, execution: ExecuteToolInput) -> VerifiedRead:
    """A read-only call verified and, if allowed, run, in the workflow task the proposal's
    result started (activities/fused.py)."""
    proposal = execution.proposal
    return await workflow.execute_local_activity(
        verify_and_read,
        VerifyAndReadInput(
            execution=execution,
            profile=run.request.profile,
            executed=_earlier_runs(run, proposal),
            effects=_earlier_effects(run, proposal),
        ),
        start_to_close_timeout=options.READ.start_to_close,
        retry_policy=options.READ.retry,
        summary=f"step {run.snapshot.step}: verify and read {proposal.describe()}",
    )


async def read(execution: ExecuteToolInput, summary: str) -> ToolResult:
    """A read-only tool (agent.tools.registry.READ_ONLY_TOOLS), in the workflow task that
    verified it: no round trip through the server's task queue for a file read."""
    return await workflow.execute_local_activity(
        execute_read_only_tool,
        execution,
        start_to_close_timeout=options.READ.start_to_close,
        retry_policy=options.READ.retry,
        summary=summary,
    )


async def record(closing: RecordStepInput) -> RecordStepResult:
    return await workflow.execute_local_activity(
        record_step,
        closing,
        start_to_close_timeout=options.RECORD.start_to_close,
        retry_policy=options.RECORD.retry,
        summary=f"step {closing.step}: {_closing(closing)}",
    )


async def propose(run: Run, asked: ProposeActionInput, summary: str) -> ProposeActionResult:
    """The last step's record, if it waits (RunSnapshot.pending_record), then the proposal, in
    one activity (activities/fused.py)."""
    snapshot = run.snapshot
    pending = snapshot.pending_record
    if pending is not None:
        summary += f"; step {pending.step}: {_closing(pending)}"
    done = await call(
        record_then_propose, RecordThenProposeInput(record=pending, propose=asked), options.MODEL, summary
    )
    if done.recorded is not None:
        _recorded(run, done.recorded)
    return done.proposed


async def close_step(run: Run, closing: RecordStepInput) -> None:
    """Write a step's record now (a local activity) and take its checkpoint and turn."""
    _recorded(run, await record(closing))


async def flush(run: Run) -> None:
    """Write the last step's record if it waits: before the run ends, or anything reads what
    it leaves (a rollback puts the workspace back)."""
    if run.snapshot.pending_record is not None:
        await close_step(run, run.snapshot.pending_record)


def _recorded(run: Run, recorded: RecordStepResult) -> None:
    run.snapshot.checkpoint = recorded.checkpoint
    run.snapshot.conversation = recorded.conversation
    if recorded.disk is not None:
        run.snapshot.disk = run.snapshot.disk.measured(recorded.disk)
    run.snapshot.pending_record = None


def _closing(closing: RecordStepInput) -> str:
    return f"{'checkpoint' if closing.action == 'commit' else 'roll back'} and record"


async def append_to_ledger(run: Run, events: list[LedgerEntry]) -> None:
    await workflow.execute_local_activity(
        append_ledger,
        AppendLedgerInput(run_id=run.run_id, entries=events),
        start_to_close_timeout=options.RECORD.start_to_close,
        retry_policy=options.RECORD.retry,
        summary=f"ledger: {', '.join(event.type for event in events)}",
    )
