"""How the workflow calls its activities: by name (contracts.activity_names), never by importing
them, each with the options `activity_options` gives its kind, the type its result decodes to,
and a summary the Web UI shows. Short deterministic-input work (verification, closing a step,
the ledger) runs as local activities."""

from __future__ import annotations

from typing import TypeVar

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
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
        RecordedThenProposed,
        RecordThenProposeInput,
        Verdict,
        VerifiedRead,
        VerifyAndReadInput,
    )
    from contracts import activity_names as named
    from contracts.approval import proposal_digest
    from contracts.effects import EarlierEffect
    from contracts.envelopes import AppendLedgerInput, RecordStepInput, RecordStepResult, VerifyProposalInput
    from contracts.ledger import LedgerEntry
    from workflows import activity_options as options
    from workflows.run import Run

Out = TypeVar("Out")


async def call(name: str, arg: object, result_type: type[Out], opts: options.ActivityOptions, summary: str) -> Out:
    return await workflow.execute_activity(
        name,
        arg,
        result_type=result_type,
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
    asked = checking(run, postconditions)
    return await call(named.CHECK_POSTCONDITIONS, asked, PostconditionResult, options.CHECK, summary)


async def execute_then_check(
    run: Run, execution: ExecuteToolInput, postconditions: list[Postcondition], summary: str
) -> ExecutedAndChecked:
    """The call, and the task's postconditions after it if it succeeded (activities/fused.py)."""
    asked = ExecuteAndCheckInput(execution=execution, check=checking(run, postconditions) if postconditions else None)
    opts = options.for_tool(options.EXECUTE_AND_CHECK, run.request.retries)
    return await call(named.EXECUTE_AND_CHECK, asked, ExecutedAndChecked, opts, summary)


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
        named.VERIFY_PROPOSAL,
        VerifyProposalInput(
            workspace=run.snapshot.workspace,
            proposal=proposal,
            profile=run.request.profile,
            executed=_earlier_runs(run, proposal),
            effects=_earlier_effects(run, proposal),
            tools=run.request.tools,
        ),
        result_type=Verdict,
        start_to_close_timeout=options.VERIFY.start_to_close,
        retry_policy=options.VERIFY.retry,
        summary=f"step {run.snapshot.step}: verify {proposal.describe()}",
    )


async def verify_then_read(run: Run, execution: ExecuteToolInput) -> VerifiedRead:
    """A read-only call verified and, if allowed, run, in the workflow task the proposal's
    result started (activities/fused.py)."""
    proposal = execution.proposal
    opts = options.for_tool(options.READ, run.request.retries)
    return await workflow.execute_local_activity(
        named.VERIFY_AND_READ,
        VerifyAndReadInput(
            execution=execution,
            profile=run.request.profile,
            executed=_earlier_runs(run, proposal),
            effects=_earlier_effects(run, proposal),
        ),
        result_type=VerifiedRead,
        start_to_close_timeout=opts.start_to_close,
        retry_policy=opts.retry,
        summary=f"step {run.snapshot.step}: verify and read {proposal.describe()}",
    )


async def record(closing: RecordStepInput) -> RecordStepResult:
    return await workflow.execute_local_activity(
        named.RECORD_STEP,
        closing,
        result_type=RecordStepResult,
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
    asked_both = RecordThenProposeInput(record=pending, propose=asked)
    opts = options.for_model(run.request.retries)
    done = await call(named.RECORD_THEN_PROPOSE, asked_both, RecordedThenProposed, opts, summary)
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
    run.snapshot.subtask.conversation = recorded.conversation
    if recorded.disk is not None:
        run.snapshot.disk = run.snapshot.disk.measured(recorded.disk)
    run.snapshot.pending_record = None


def _closing(closing: RecordStepInput) -> str:
    return f"{'checkpoint' if closing.action == 'commit' else 'roll back'} and record"


async def append_to_ledger(run: Run, events: list[LedgerEntry]) -> None:
    await workflow.execute_local_activity(
        named.APPEND_LEDGER,
        AppendLedgerInput(run_id=run.run_id, entries=events),
        start_to_close_timeout=options.RECORD.start_to_close,
        retry_policy=options.RECORD.retry,
        summary=f"ledger: {', '.join(event.type for event in events)}",
    )
