"""An effects policy that cannot be split (issue 31): twelve refunds of 10,000 cents on one order
were each allowed where one of 120,000 needs a person's approval, since the limit was per call;
and an account could be disabled with no approval rule at all. The limits now count the run's
earlier effects (contracts.effects.EarlierEffect), which both runtimes keep and hand the verifier.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from temporalio.client import Client, WorkflowHandle

from agent.earlier_effects import earlier_effect, for_rule
from agent.tools.ops import REFUND_APPROVAL_LIMIT_CENTS, REFUND_RUN_APPROVAL_LIMIT_CENTS
from agent.verification import verify
from baseline import BaselineLoop
from contracts import (
    ActionProposal,
    Approve,
    EarlierEffect,
    Plan,
    PolicyProfile,
    ProviderConfig,
    ReasonCode,
    RunBudget,
    RunRequest,
    RunSnapshot,
    RunState,
    ServiceCount,
    StepRecord,
    Subtask,
    SubtaskOrigin,
    ToolResult,
    Verdict,
)
from host.build import build_worker
from lab.runs.fork import snapshot_after
from ops_service import OpsServiceProcess
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps
from workflows import AgentRunWorkflow
from workflows.calls import _earlier_effects
from workflows.outcome import run_result

SCRIPT = PROJECT_ROOT / "tests" / "scripts" / "split_refunds.yaml"


def refund(order_id: str = "o-1", amount_cents: int = 10_000, reason: str = "r") -> ActionProposal:
    arguments: dict[str, Any] = {"order_id": order_id, "amount_cents": amount_cents, "reason": reason}
    return ActionProposal(tool="issue_refund", arguments=arguments)


class Run:
    """A run's effects as a runtime keeps them: a call the verifier allows (or a person
    approves) runs and succeeds, and is remembered; the verifier sees the earlier ones."""

    def __init__(self, workspace: Path) -> None:
        self.workspace = workspace
        self.effects: list[EarlierEffect] = []
        self.step = 0

    def verify(self, proposal: ActionProposal) -> Verdict:
        self.step += 1
        return verify(self.workspace, proposal, PolicyProfile.OPERATOR, effects=for_rule(proposal, self.effects))

    def ran(self, proposal: ActionProposal, ok: bool = True) -> None:
        if (effect := earlier_effect(self.step, proposal, ToolResult(tool=proposal.tool or "", ok=ok))) is not None:
            self.effects.append(effect)

    def propose(self, proposal: ActionProposal, *, approved: bool = False) -> Verdict:
        verdict = self.verify(proposal)
        if verdict.allowed or approved:
            self.ran(proposal)
        return verdict


# --- the verifier, given the run's earlier effects ------------------------------------------


def test_twelve_refunds_of_one_order_need_what_one_of_their_sum_needs(tmp_path: Path) -> None:
    run = Run(tmp_path)
    verdicts = [run.propose(refund(reason=f"part {i}")) for i in range(1, 13)]
    # The first is within the limit; the second brings the order over it, and so does every
    # later one: none ran without a person, so one refund of 10,000 cents was paid in all.
    assert [v.decision for v in verdicts] == ["allow"] + ["needs_approval"] * 11
    second = verdicts[1]
    assert second.reason_code == ReasonCode.APPROVAL_RULE
    assert second.message == (
        "a refund of 10000 cents on order 'o-1' brings this run's refunds of that order to 20000 cents"
        " (10000 cents earlier, at step 1), above the 10000 cents that may be refunded on one order"
        " without a person's approval"
    )
    assert [effect.step for effect in run.effects] == [1]


def test_an_approved_refund_still_counts_toward_the_order(tmp_path: Path) -> None:
    """A person approved that refund, of that amount; not an allowance for more."""
    run = Run(tmp_path)
    assert run.propose(refund(amount_cents=6_000)).allowed
    assert run.propose(refund(amount_cents=6_000), approved=True).decision == "needs_approval"
    small = run.propose(refund(amount_cents=100))
    assert small.decision == "needs_approval"
    assert "to 12100 cents (12000 cents earlier, at steps 1, 2)" in small.message
    # Another order has its own limit.
    assert run.propose(refund(order_id="o-2", amount_cents=9_000)).allowed


def test_refunds_over_many_orders_need_approval_past_the_run_limit(tmp_path: Path) -> None:
    run = Run(tmp_path)
    under = [run.propose(refund(order_id=f"o-{i}", amount_cents=9_000)) for i in range(1, 4)]
    assert all(verdict.allowed for verdict in under)  # 27,000 cents over three orders
    fourth = run.propose(refund(order_id="o-4", amount_cents=9_000))
    assert fourth.decision == "needs_approval" and fourth.reason_code == ReasonCode.APPROVAL_RULE
    assert fourth.message == (
        "a refund of 9000 cents brings this run's refunds to 36000 cents (27000 cents earlier, at steps"
        f" 1, 2, 3), above the {REFUND_RUN_APPROVAL_LIMIT_CENTS} cents that may be refunded in one run"
        " without a person's approval"
    )
    assert REFUND_APPROVAL_LIMIT_CENTS < REFUND_RUN_APPROVAL_LIMIT_CENTS


def test_a_single_small_refund_is_allowed_and_a_single_large_one_is_not(tmp_path: Path) -> None:
    assert Run(tmp_path).propose(refund(amount_cents=4_200)).allowed
    assert Run(tmp_path).propose(refund(amount_cents=REFUND_APPROVAL_LIMIT_CENTS)).allowed
    large = Run(tmp_path).propose(refund(amount_cents=15_000))
    assert large.decision == "needs_approval"
    assert large.message.startswith("a refund of 15000 cents is above the 10000 cents")


def test_only_effects_that_happened_count(tmp_path: Path) -> None:
    run = Run(tmp_path)
    run.verify(refund(amount_cents=9_000))
    run.ran(refund(amount_cents=9_000), ok=False)  # the service refused it: no refund
    run.verify(ticket := ActionProposal(tool="create_ticket", arguments={"title": "t", "body": "b"}))
    run.ran(ticket)  # an effect, of another tool: no refund rule's concern
    assert [effect.tool for effect in run.effects] == ["create_ticket"]
    assert for_rule(refund(), run.effects) == []
    assert run.propose(refund(amount_cents=9_000)).allowed


def test_disabling_an_account_always_needs_a_person(tmp_path: Path) -> None:
    disable = ActionProposal(tool="disable_account", arguments={"user": "dana", "reason": "leaves today"})
    verdict = Run(tmp_path).propose(disable)
    assert verdict.decision == "needs_approval" and verdict.reason_code == ReasonCode.APPROVAL_RULE
    assert verdict.message == (
        "disabling account 'dana' locks its user out at once, and no tool can enable it again:"
        " every account disabled needs a person's approval"
    )


# --- the durable runtime's wiring beyond a step: subtasks and forks --------------------------


def test_a_subtasks_child_counts_its_parents_effects(tmp_path: Path) -> None:
    parents = [EarlierEffect(step=1, tool="issue_refund", arguments=refund(amount_cents=8_000).arguments)]
    task = Subtask(id="t", title="t")
    origin = SubtaskOrigin(
        parent_run_id="p", parent_workspace="/w", checkpoint="0" * 40, subtask=task, plan_version=1, effects=parents
    )
    child = SimpleNamespace(request=SimpleNamespace(subtask=origin), snapshot=RunSnapshot())
    handed = _earlier_effects(child, refund(amount_cents=8_000))  # type: ignore[arg-type]
    assert handed == parents
    assert verify(tmp_path, refund(amount_cents=8_000), PolicyProfile.OPERATOR, effects=handed).decision == (
        "needs_approval"
    )


def test_a_fork_starts_with_its_parents_effects_up_to_its_step() -> None:
    plan = Plan(subtasks=[Subtask(id="one", title="one")])
    steps = [StepRecord(step=n, subtask_id="one", outcome="committed") for n in (1, 2, 3)]
    effects = [EarlierEffect(step=n, tool="issue_refund", arguments=refund(reason=str(n)).arguments) for n in (1, 3)]
    final = RunSnapshot(step=3, task_id="one", plan=plan, steps=steps, effects=effects)
    assert snapshot_after(final, 2, subtask_ended=False).effects == effects[:1]


# --- both runtimes, for real: the scripted run that splits a refund in two ------------------


@pytest.fixture
def ops_url(service: OpsServiceProcess, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    return service.url


def split_request(tmp_path: Path, runtime: str) -> RunRequest:
    """A world whose order o-7001 (50,000 cents) holds both parts: only the verifier stops the second."""
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "README.md").write_text("Refund 16,000 cents on order o-7001.\n")
    seed = {"orders": [{"order_id": "o-7001", "customer": "c-1", "amount_cents": 50_000}]}
    (fixture / "ops_seed.json").write_text(json.dumps(seed))
    return RunRequest(
        run_id=f"{runtime}-split-refunds-{uuid.uuid4().hex[:8]}",
        runtime=runtime,  # type: ignore[arg-type]
        task_id="split-refunds",
        goal="Refund 16,000 cents on order o-7001, in two parts.",
        fixture_dir=str(fixture),
        acceptance=[ServiceCount(resource="refunds", where={"order_id": "o-7001"}, expect=2)],
        provider=ProviderConfig(kind="scripted", script_path=str(SCRIPT)),
        budget=RunBudget(max_steps=6, max_steps_per_subtask=6),
        profile=PolicyProfile.OPERATOR,
        baseline_verifies=True,
    )


async def refunds(url: str, world_id: str) -> list[tuple[str, int]]:
    async with httpx.AsyncClient(base_url=url, headers={"X-Tenant": world_id}, timeout=5) as client:
        response = await client.get("/refunds")
    assert response.status_code == 200, response.text
    return [(row["order_id"], row["amount_cents"]) for row in response.json()]


async def waiting(handle: WorkflowHandle[Any, Any]) -> RunSnapshot:
    for _ in range(500):
        progress = await handle.query(AgentRunWorkflow.progress, 0)
        if progress.state == RunState.AWAITING_APPROVAL or progress.state.terminal:
            return progress
        await asyncio.sleep(0.02)
    raise AssertionError(f"the run never waited for approval: it is {progress.state}")


async def test_the_durable_run_stops_at_the_second_part_for_a_person(
    ops_url: str, client: Client, task_queue: str, tmp_path: Path
) -> None:
    request = split_request(tmp_path, "durable")
    async with build_worker(client, task_queue):
        handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
        progress = await waiting(handle)
        assert progress.state == RunState.AWAITING_APPROVAL, progress.state
        pending = progress.pending_approval
        assert pending is not None and pending.step == 2
        assert pending.proposal.arguments["reason"] == "part 2 of 2"
        assert pending.reason_code == ReasonCode.APPROVAL_RULE
        assert "brings this run's refunds of that order to 16000 cents" in pending.message
        assert [effect.step for effect in progress.effects] == [1]
        # The first part is paid; the second waits.
        assert await refunds(ops_url, request.world_id) == [("o-7001", 8_000)]

        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="test", arguments_sha256=pending.arguments_sha256)
        )
        result = await run_result(handle)

    assert result.outcome == RunState.COMPLETED, result.reason
    assert [(a.step, a.approved) for a in result.approvals] == [(2, True)]
    assert [effect.step for effect in result.effects] == [1, 2]
    assert await refunds(ops_url, request.world_id) == [("o-7001", 8_000), ("o-7001", 8_000)]


async def test_the_baseline_with_its_verifier_does_not_pay_the_second_part(ops_url: str, tmp_path: Path) -> None:
    request = split_request(tmp_path, "baseline")

    result = await BaselineLoop(lab_deps()).run(request)

    # No person to ask: the second part is refused, and the run's end state says so.
    second = result.steps[1]
    assert second.outcome == "rejected" and second.verdict is not None
    assert second.verdict.decision == "needs_approval"
    assert "brings this run's refunds of that order to 16000 cents" in second.verdict.message
    assert [effect.step for effect in result.effects] == [1]
    assert await refunds(ops_url, request.world_id) == [("o-7001", 8_000)]
    assert result.outcome == RunState.FAILED
