"""`python -m starter pending | approve WORKFLOW_ID | deny WORKFLOW_ID --reason ...`.

`pending` reads what each run waits for from its memo (starter.waiting_runs): no worker needed.
An approval is bound to the sha256 of the exact proposal it answers: `approve` shows the
pending proposal and approves that one (or the digest given with --sha256, which must match,
checked before anything is sent). The run's worker applies the decision; the command waits
until it has.
"""

from __future__ import annotations

import getpass
import os
import re
from datetime import UTC, datetime, timedelta

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowUpdateFailedError
from temporalio.service import RPCError, RPCStatusCode

from contracts.approval import ApprovalDecision, Approve, Deny, PendingApprovalSummary
from contracts.errors import StarterError
from starter.waiting_runs import QUERY_FAILED, list_pending, memo_in
from workflows import AgentRunWorkflow

# A worker that is alive answers in milliseconds; without one the server would hold the query
# for tens of seconds before saying so.
_DECISION_QUERY_TIMEOUT = timedelta(seconds=5)
_DURATION = re.compile(r"^(\d+)([smhd])$")


async def pending(client: Client) -> int:
    waiting = await list_pending(client)
    if not waiting:
        print("no run is waiting for an approval")
    for run in waiting:
        item = run.approval
        if item is None:
            print(f"{run.run_id}  its pending approval, if any, could not be read: {run.unreadable}")
            continue
        print(
            f"{run.run_id}  step {item.step} ({item.subtask_id})  {item.proposal}\n"
            f"    why: {item.reason_code}: {item.message}\n"
            f"    arguments sha256: {item.arguments_sha256}  waiting since {item.requested_at:%Y-%m-%d %H:%M:%S} UTC"
        )
    return 0


async def approve(
    client: Client, workflow_id: str, approver: str | None, sha256: str | None, expires_in: str | None
) -> int:
    expires_at = datetime.now(UTC) + parse_duration(expires_in) if expires_in else None
    item = await _pending_of(client, workflow_id)
    if sha256 is not None and sha256 != item.arguments_sha256:
        raise StarterError(
            f"refused: --sha256 {sha256} is not the pending proposal's digest, {item.arguments_sha256} "
            f"(step {item.step}: {item.proposal}): approve what `pending` shows"
        )
    decision = Approve(
        approver=approver or default_approver(),
        arguments_sha256=sha256 or item.arguments_sha256,
        expires_at=expires_at,
    )
    print(f"approving step {item.step} of {workflow_id}: {item.proposal}")
    result = await _update(client, workflow_id, AgentRunWorkflow.approve, decision)
    print(f"approved by {result.approver}; the run goes on")
    return 0


async def deny(client: Client, workflow_id: str, approver: str | None, reason: str) -> int:
    item = await _pending_of(client, workflow_id)
    decision = Deny(approver=approver or default_approver(), reason=reason)
    result = await _update(client, workflow_id, AgentRunWorkflow.deny, decision)
    print(f"denied step {item.step} of {workflow_id} ({result.approver}: {reason}); the model is told why")
    return 0


async def _pending_of(client: Client, workflow_id: str) -> PendingApprovalSummary:
    handle = client.get_workflow_handle(workflow_id)
    # The server describes a run without a worker; a query needs one, and on a finished run
    # would only say that no worker polls.
    try:
        described = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            raise StarterError(f"no run {workflow_id!r} on this server") from None
        raise StarterError(f"cannot describe run {workflow_id!r}: {error.message}") from None
    if described.status != WorkflowExecutionStatus.RUNNING:
        status = described.status.name if described.status else "closed"
        raise StarterError(f"run {workflow_id!r} has finished ({status}): there is nothing left to approve or deny")
    # The decision is applied by the run's worker: ask it, which also says one is alive. (Its
    # answer, not the memo, is what is decided on: the memo is the server's copy, a task behind.)
    try:
        progress = await handle.query(AgentRunWorkflow.progress, 1_000_000, rpc_timeout=_DECISION_QUERY_TIMEOUT)
    except QUERY_FAILED as error:
        memo = await memo_in(described)
        waits = memo.pending if memo is not None else None
        what = f" and waits for approval of step {waits.step} ({waits.proposal}), but" if waits else " but"
        message = _one_line(str(getattr(error, "message", None) or error))
        raise StarterError(
            f"run {workflow_id!r} is running{what} no worker answers for it ({message}): a decision needs one; "
            "start one (`python worker.py`) or the run's own `starter run`"
        ) from None
    if progress.pending_approval is None:
        raise StarterError(f"run {workflow_id!r} is not waiting for an approval (it is {progress.state})")
    return PendingApprovalSummary.of(progress.pending_approval)


async def _update(client: Client, workflow_id: str, update: object, decision: Approve | Deny) -> ApprovalDecision:
    handle = client.get_workflow_handle(workflow_id)
    try:
        return await handle.execute_update(update, decision)  # type: ignore[arg-type]
    except WorkflowUpdateFailedError as error:
        cause = error.cause
        message = getattr(cause, "message", None) or str(cause or error)
        raise StarterError(f"refused: {message}") from None
    except RPCError as error:
        raise StarterError(f"cannot reach run {workflow_id!r}: {error.message}") from None


def _one_line(text: str) -> str:
    return " ".join(text.split())


def default_approver() -> str:
    return os.environ.get("AGENT_LAB_APPROVER") or getpass.getuser()


def parse_duration(text: str) -> timedelta:
    """30s, 15m, 2h, 3d."""
    match = _DURATION.match(text.strip())
    if match is None:
        raise StarterError(f"not a duration: {text!r} (use e.g. 30m, 2h, 3d)")
    amount, unit = int(match.group(1)), match.group(2)
    return timedelta(**{{"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}[unit]: amount})
