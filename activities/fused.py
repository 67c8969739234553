"""Two calls a step always makes together, as one activity: a round trip through the server and
a workflow activation fewer each (docs/performance.md, "Where a durable step's time goes").

Each is the same core functions the separate activities call, in the order the workflow called
them, and decides nothing the workflow would have decided differently: a read runs only when
its verdict allows it, and postconditions are checked only after a call that succeeded (the
workflow checks none after a failed one). The workflow still moves its state machine through
every state, from what the activity returns.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio import activity

from activities.boundary import activity_boundary
from agent.execution import execute
from agent.postconditions import check
from agent.tools.registry import READ_ONLY_TOOLS
from agent.verification import verify
from contracts import ExecuteAndCheckInput, ExecutedAndChecked, VerifiedRead, VerifyAndReadInput
from contracts.errors import BadInput


@activity.defn
async def verify_and_read(request: VerifyAndReadInput) -> VerifiedRead:
    """A local activity, like the two it stands for: verification reads the workspace (paths,
    its fingerprint) and a read-only tool reads it in-process, in milliseconds."""
    async with activity_boundary(heartbeat=False):
        call = request.execution
        if call.proposal.tool not in READ_ONLY_TOOLS:
            raise BadInput(f"{call.proposal.tool!r} is not a read-only tool: it is verified, then run as execute_tool")
        # In a thread: fingerprinting the workspace reads its files.
        workspace = Path(call.workspace)
        verdict = await asyncio.to_thread(verify, workspace, call.proposal, request.profile, request.executed)
        if verdict.decision != "allow":
            return VerifiedRead(verdict=verdict)
        return VerifiedRead(verdict=verdict, result=await execute(call))


@activity.defn
async def execute_and_check(request: ExecuteAndCheckInput) -> ExecutedAndChecked:
    """A retry after a crash between the two gets the call's recorded result (its idempotency
    key), not a second effect, and checks again: a check only reads."""
    async with activity_boundary():
        result = await execute(request.execution)
        if not result.ok or request.check is None:
            return ExecutedAndChecked(result=result)
        checking = request.check
        # As check_postconditions: a service that does not answer is retried, never judged.
        checked = await check(Path(checking.workspace), checking.postconditions, checking.world_id, retry_outages=True)
        return ExecutedAndChecked(result=result, check=checked)
