"""Calls a run always makes one after the other, as one activity: a round trip through the
server or a workflow activation fewer each (docs/performance.md, "Where a durable step's time
goes").

Each is the same core functions the separate activities call, in the order the workflow called
them, and decides nothing the workflow would have decided differently: a read runs only when
its verdict allows it, postconditions are checked only after a call that succeeded (the
workflow checks none after a failed one), and a step's record, decided by the workflow, is
written before the next proposal is asked for. The workflow still moves its state machine
through every state, from what the activity returns.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio import activity

from activities import attempt_usage
from activities.boundary import activity_boundary
from agent import model_calls
from agent.dependencies import Dependencies
from agent.execution import execute
from agent.postconditions import check
from agent.step_records import record_step
from agent.tools.registry import READ_ONLY_TOOLS
from agent.verification import verify
from contracts import (
    ExecuteAndCheckInput,
    ExecutedAndChecked,
    RecordedThenProposed,
    RecordThenProposeInput,
    VerifiedRead,
    VerifyAndReadInput,
)
from contracts.errors import BadInput


class FusedActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="verify_and_read")
    async def verify_and_read(self, request: VerifyAndReadInput) -> VerifiedRead:
        """A local activity, like the two it stands for: verification reads the workspace (paths,
        its fingerprint) and a read-only tool reads it in-process, in milliseconds."""
        async with activity_boundary(self.deps.attempts, heartbeat=False):
            call = request.execution
            if call.proposal.tool not in READ_ONLY_TOOLS:
                raise BadInput(
                    f"{call.proposal.tool!r} is not a read-only tool: verified alone, it runs with its check"
                )
            # In a thread: fingerprinting the workspace reads its files.
            workspace = Path(call.workspace)
            verdict = await asyncio.to_thread(
                verify, workspace, call.proposal, request.profile, request.executed, request.effects, offered=call.tools
            )
            if verdict.decision != "allow":
                return VerifiedRead(verdict=verdict)
            return VerifiedRead(verdict=verdict, result=await execute(self.deps, call))

    @activity.defn(name="execute_and_check")
    async def execute_and_check(self, request: ExecuteAndCheckInput) -> ExecutedAndChecked:
        """A retry after a crash between the two gets the call's recorded result (its idempotency
        key), not a second effect, and checks again: a check only reads."""
        async with activity_boundary(self.deps.attempts):
            result = await execute(self.deps, request.execution)
            if not result.ok or request.check is None:
                return ExecutedAndChecked(result=result)
            checking = request.check
            # As check_postconditions: a service that does not answer is retried, never judged.
            checked = await check(
                self.deps, Path(checking.workspace), checking.postconditions, checking.world_id, retry_outages=True
            )
            return ExecutedAndChecked(result=result, check=checked)

    @activity.defn(name="record_then_propose")
    async def record_then_propose(self, request: RecordThenProposeInput) -> RecordedThenProposed:
        """The last step's checkpoint, ledger events and turn (idempotent, as record_step: a retry
        repeats nothing), then the proposal that reads that turn. As propose_action, the provider
        sees which attempt this is and every failed attempt's cost is counted."""
        asked = request.propose.model_copy(update={"attempt": activity.info().attempt})
        async with activity_boundary(self.deps.attempts):
            recorded = await record_step(self.deps, request.record) if request.record is not None else None
            if recorded is not None and recorded.conversation is not None:
                asked = asked.model_copy(update={"conversation": recorded.conversation})
            proposed = await model_calls.propose_action(self.deps, asked)
        failed = await attempt_usage.earlier_failures(self.deps.attempts)
        proposed = proposed.model_copy(update={"failed_attempts": failed})
        return RecordedThenProposed(recorded=recorded, proposed=proposed)
