"""Human approval: the run waits (days, holding nothing), a person approves or denies the exact
proposal through a validated update, and bad decisions change nothing."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest
from temporalio.client import Client, WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from contracts import (
    ActionProposal,
    Approve,
    Deny,
    ProposeActionInput,
    ProposeActionResult,
    ReasonCode,
    RunBudget,
    RunSnapshot,
    RunState,
    Verdict,
    proposal_digest,
)
from tests.workflow_fakes import ONE_CALL, FakeWorld, call, request, sequence
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

BIG_REFUND = call("issue_refund", order_id="o-1", amount_cents=20_000, reason="duplicate charge")


def refunds_need_approval(proposal: ActionProposal) -> Verdict:
    if proposal.tool == "issue_refund":
        return Verdict(decision="needs_approval", reason_code=ReasonCode.APPROVAL_RULE, message="above 10,000 cents")
    return Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)


async def waiting(handle: WorkflowHandle[AgentRunWorkflow, object], step: int = 1) -> RunSnapshot:
    for _ in range(400):
        progress = await handle.query(AgentRunWorkflow.progress, 0)
        if progress.state == RunState.AWAITING_APPROVAL and progress.step == step:
            return progress
        await asyncio.sleep(0.02)
    raise AssertionError(f"the run never waited for approval at step {step}: {progress.state}")


async def start(client: Client, task_queue: str, budget: RunBudget | None = None) -> WorkflowHandle:
    run_request = request(budget)
    return await client.start_workflow(AgentRunWorkflow.run, run_request, id=run_request.run_id, task_queue=task_queue)


def worker(client: Client, task_queue: str, world: FakeWorld, **options: object) -> Worker:
    return Worker(client, task_queue=task_queue, workflows=[AgentRunWorkflow], activities=world.activities(), **options)  # type: ignore[arg-type]


async def test_a_run_waits_days_for_a_person_and_then_acts(
    env: WorkflowEnvironment, client: Client, task_queue: str, worker_options: dict[str, object]
) -> None:
    world = FakeWorld(sequence(BIG_REFUND), verdict=refunds_need_approval)
    # Waiting does not count against the wall-time budget: an hour's budget survives three days.
    async with worker(client, task_queue, world, **worker_options):
        handle = await start(client, task_queue, RunBudget(max_wall_time_s=3600))
        pending = (await waiting(handle)).pending_approval
        assert pending is not None
        assert pending.arguments_sha256 == proposal_digest(BIG_REFUND)
        assert pending.reason_code == ReasonCode.APPROVAL_RULE
        # The small query for callers that ask often (the experiment's approver) says the same.
        assert await handle.query(AgentRunWorkflow.pending_approval) == pending

        await env.sleep(timedelta(days=3))
        assert (await handle.query(AgentRunWorkflow.progress, 0)).state == RunState.AWAITING_APPROVAL
        assert world.executed == []

        decision = await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=pending.arguments_sha256)
        )
        result = await run_result(handle)
        assert await handle.query(AgentRunWorkflow.pending_approval) is None

    assert decision.approved and decision.approver == "ada"
    assert result.outcome == RunState.COMPLETED
    assert [p.tool for p in world.executed] == ["issue_refund"]
    assert [(a.approver, a.approved) for a in result.approvals] == [("ada", True)]
    assert {"approval_requested", "approval_decided"} <= {entry.type for entry in world.ledger}


async def test_a_wrong_digest_an_expired_approval_or_a_run_not_waiting_change_nothing(
    env: WorkflowEnvironment, client: Client, task_queue: str
) -> None:
    world = FakeWorld(sequence(BIG_REFUND), verdict=refunds_need_approval)
    async with worker(client, task_queue, world):
        handle = await start(client, task_queue)
        before = await waiting(handle)
        assert before.pending_approval is not None
        digest = before.pending_approval.arguments_sha256

        with pytest.raises(WorkflowUpdateFailedError) as wrong:
            await handle.execute_update(AgentRunWorkflow.approve, Approve(approver="eve", arguments_sha256="0" * 64))
        assert "approve what `pending` shows" in str(wrong.value.cause)
        expired = (await env.get_current_time()) - timedelta(hours=1)
        with pytest.raises(WorkflowUpdateFailedError) as lapsed:
            await handle.execute_update(
                AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=digest, expires_at=expired)
            )
        assert "expired" in str(lapsed.value.cause)
        after = await handle.query(AgentRunWorkflow.progress, 0)
        assert after.state == RunState.AWAITING_APPROVAL and after.pending_approval == before.pending_approval
        assert world.executed == []

        await handle.execute_update(AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=digest))
        result = await run_result(handle)
        # A finished run waits for nothing (the server refuses, or the validator does).
        with pytest.raises((WorkflowUpdateFailedError, RPCError)):
            await handle.execute_update(AgentRunWorkflow.deny, Deny(approver="ada", reason="too late"))
    assert result.outcome == RunState.COMPLETED
    assert [a.approver for a in result.approvals] == ["ada"]
    # Refused updates never reached history: only the accepted one is there.
    updates = [
        e
        async for e in handle.fetch_history_events()
        if e.HasField("workflow_execution_update_accepted_event_attributes")
    ]
    assert len(updates) == 1


async def test_a_run_that_is_busy_is_not_waiting(client: Client, task_queue: str) -> None:
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow(asked: ProposeActionInput) -> ProposeActionResult:
        asyncio.run_coroutine_threadsafe(release.wait(), loop).result()
        return ProposeActionResult(proposal=call("write_file", path="a", content="b"), usage=ONE_CALL)

    world = FakeWorld(slow)
    async with worker(client, task_queue, world):
        handle = await start(client, task_queue)
        while (await handle.query(AgentRunWorkflow.progress, 0)).state != RunState.PROPOSING:
            await asyncio.sleep(0.02)
        with pytest.raises(WorkflowUpdateFailedError) as busy:
            await handle.execute_update(AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256="a" * 64))
        assert "not waiting for an approval (it is PROPOSING)" in str(busy.value.cause)
        release.set()
        assert (await run_result(handle)).outcome == RunState.COMPLETED


async def test_a_denial_reason_goes_back_to_the_model(client: Client, task_queue: str) -> None:
    small = call("issue_refund", order_id="o-1", amount_cents=4_200, reason="duplicate charge")
    world = FakeWorld(
        sequence(BIG_REFUND, small),
        verdict=lambda p: (
            refunds_need_approval(p) if p == BIG_REFUND else Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)
        ),
    )
    async with worker(client, task_queue, world):
        handle = await start(client, task_queue)
        await waiting(handle)
        await handle.execute_update(
            AgentRunWorkflow.deny, Deny(approver="ada", reason="refund only the duplicate 4,200")
        )
        result = await run_result(handle)
    assert result.outcome == RunState.COMPLETED
    assert [s.outcome for s in result.steps] == ["rejected", "committed"]
    assert "denied by ada: refund only the duplicate 4,200" in world.asked[1].history[0].feedback
    assert [p.arguments["amount_cents"] for p in world.executed] == [4_200]
    assert [(a.approved, a.reason) for a in result.approvals] == [(False, "refund only the duplicate 4,200")]


async def test_a_different_proposal_needs_a_new_approval(client: Client, task_queue: str) -> None:
    other = call("issue_refund", order_id="o-2", amount_cents=30_000, reason="second order")
    world = FakeWorld(sequence(BIG_REFUND, other), verdict=refunds_need_approval, holds_after=2)
    async with worker(client, task_queue, world):
        handle = await start(client, task_queue)
        first = (await waiting(handle, step=1)).pending_approval
        assert first is not None
        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=first.arguments_sha256)
        )
        second = (await waiting(handle, step=2)).pending_approval
        assert second is not None and second.arguments_sha256 != first.arguments_sha256
        # The first approval's digest does not cover the second proposal.
        with pytest.raises(WorkflowUpdateFailedError):
            await handle.execute_update(
                AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=first.arguments_sha256)
            )
        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="bob", arguments_sha256=second.arguments_sha256)
        )
        result = await run_result(handle)
    assert [a.approver for a in result.approvals] == ["ada", "bob"]
    assert len(world.executed) == 2
