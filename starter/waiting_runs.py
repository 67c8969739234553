"""Which runs wait for a person, and on what: read from each run's memo, which the server
returns when it lists runs, with no worker alive (workflows.approval_memo keeps it).

A run started before the memo (it has none) is asked with its `progress` query, which a worker
must answer: with a short timeout, and a run whose worker does not answer is still listed,
with why its pending approval could not be read.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

from pydantic import BaseModel
from temporalio.client import Client, WorkflowExecution, WorkflowQueryFailedError, WorkflowQueryRejectedError
from temporalio.service import RPCError

from contracts import RunState
from contracts.approval import APPROVAL_MEMO, ApprovalMemo, PendingApprovalSummary
from workflows import AgentRunWorkflow

RUNNING = "WorkflowType = 'AgentRunWorkflow' AND ExecutionStatus = 'Running'"
# Where a worker is alive a query answers in milliseconds; without one the server holds it
# for tens of seconds. Long enough for a busy worker, short enough to list every run at once.
QUERY_TIMEOUT = timedelta(seconds=2)
QUERY_FAILED = (RPCError, WorkflowQueryFailedError, WorkflowQueryRejectedError)


class WaitingRun(BaseModel):
    """A running run that waits for an approval, or may: `approval` when it could be read,
    else `unreadable` says why not."""

    run_id: str
    approval: PendingApprovalSummary | None = None
    unreadable: str = ""


async def list_pending(client: Client, query_timeout: timedelta = QUERY_TIMEOUT) -> list[WaitingRun]:
    """Every running agent run that waits for a person, or whose state could not be read."""
    found: list[WaitingRun] = []
    unmarked: list[str] = []
    async for execution in client.list_workflows(RUNNING):
        memo = await memo_in(execution)
        if memo is None:
            unmarked.append(execution.id)
        elif memo.pending is not None:
            found.append(WaitingRun(run_id=execution.id, approval=memo.pending))
    # At once: each run without a worker costs the whole timeout.
    asked = await asyncio.gather(*(asked_for(client, run_id, query_timeout) for run_id in unmarked))
    found.extend(run for run in asked if run is not None)
    return found


async def asked_for(client: Client, run_id: str, timeout: timedelta = QUERY_TIMEOUT) -> WaitingRun | None:
    """A run without the memo, through its query: None when it waits for nothing."""
    try:
        progress = await client.get_workflow_handle(run_id).query(
            AgentRunWorkflow.progress, 1_000_000, rpc_timeout=timeout
        )
    except QUERY_FAILED as error:
        why = " ".join(str(getattr(error, "message", None) or error).split())
        return WaitingRun(
            run_id=run_id,
            unreadable=f"it keeps no memo (started before it did) and no worker answered its query within "
            f"{timeout.total_seconds():g} s ({why})",
        )
    if progress.state != RunState.AWAITING_APPROVAL or progress.pending_approval is None:
        return None
    return WaitingRun(run_id=run_id, approval=PendingApprovalSummary.of(progress.pending_approval))


async def memo_in(execution: WorkflowExecution) -> ApprovalMemo | None:
    """The run's approval memo, None when it keeps none (or one this build cannot read)."""
    try:
        return await execution.memo_value(APPROVAL_MEMO, None, type_hint=ApprovalMemo)
    except (ValueError, RuntimeError, TypeError):
        # Written by another build in a shape this one does not read: ask the run instead.
        return None
