"""Waiting for a person's decision on a proposal, for days if need be, holding no activity and
no worker slot. The decision arrives through the workflow's `approve` or `deny` update, which
checks it against the pending proposal before it is written to history."""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from contracts import ActionProposal, RunState, Subtask, Verdict
    from contracts.approval import ApprovalDecision, PendingApproval, proposal_digest
    from contracts.errors import IllegalTransition
    from workflows import approval_memo, calls
    from workflows.run import Run
    from workflows.state_machine import as_run_failure


async def await_approval(run: Run, subtask: Subtask, proposal: ActionProposal, verdict: Verdict) -> ApprovalDecision:
    snapshot = run.snapshot
    run.move(RunState.AWAITING_APPROVAL)
    requested_at = workflow.now()
    snapshot.pending_approval = PendingApproval(
        step=snapshot.step,
        subtask_id=subtask.id,
        proposal=proposal,
        arguments_sha256=proposal_digest(proposal),
        reason_code=verdict.reason_code,
        message=verdict.message,
        requested_at=requested_at,
    )
    approval_memo.waiting_for(snapshot.pending_approval)
    await calls.append_to_ledger(
        run, [run.entries.entry("approval_requested", requested_at, snapshot.step, pending=snapshot.pending_approval)]
    )
    await workflow.wait_condition(lambda: run.decision is not None)
    decision, run.decision = run.decision, None
    if decision is None:
        raise as_run_failure(IllegalTransition(run.fsm.state, "a decision nobody made"))
    waited = (workflow.now() - requested_at).total_seconds()
    snapshot.waited_s += waited
    snapshot.subtask.waited_s += waited
    snapshot.pending_approval = None
    approval_memo.waiting_for(None)
    snapshot.approvals.append(decision)
    await calls.append_to_ledger(
        run, [run.entries.entry("approval_decided", decision.decided_at, snapshot.step, decision=decision)]
    )
    return decision


def awaited(run: Run) -> PendingApproval:
    """The proposal waiting for a decision; ValueError (an update refused, never recorded) when
    there is none."""
    pending = run.snapshot.pending_approval
    if pending is None or run.decision is not None or run.fsm.state != RunState.AWAITING_APPROVAL:
        raise ValueError(f"the run is not waiting for an approval (it is {run.fsm.state})")
    return pending
