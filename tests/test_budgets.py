"""Budgets on steps, tokens, cost and wall time, per run and per task; every model attempt,
failed ones included, is counted."""

from __future__ import annotations

import dataclasses
from typing import ClassVar

import pytest
from temporalio.client import Client

from agent import model_calls
from agent.providers.scripted import ScriptedProvider
from baseline import BaselineLoop
from contracts import (
    ActionProposal,
    CommandExitCode,
    ProposeActionInput,
    ProposeActionResult,
    RunBudget,
    RunState,
    Subtask,
    ToolSpec,
    Usage,
)
from contracts.errors import ProviderUnavailable
from host.build import build_worker
from lab.runs.catalog import Task
from lab.runs.run_request import REFUSED_CLAIMS, build_request
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from tests.workflow_fakes import DONE, ONE_CALL, FakeWorld, call, run, sequence

WRITE = call("write_file", path="a", content="b")


def costly(asked: ProposeActionInput) -> ProposeActionResult:
    return ProposeActionResult(
        proposal=WRITE, usage=Usage(input_tokens=10, output_tokens=5, cost_usd=0.01, model_calls=1)
    )


@pytest.mark.parametrize(
    ("budget", "steps", "says"),
    [
        # compile + plan spend 30 tokens; each proposal 15 more
        (RunBudget(max_tokens=60), 2, "the run's budget of 60 tokens is spent (60)"),
        (RunBudget(max_tokens_per_subtask=30), 2, "the subtask's budget of 30 tokens is spent (30)"),
        (RunBudget(max_cost_usd=0.025), 3, "the run's budget of 0.025 cost in USD is spent (0.03)"),
        (RunBudget(max_cost_usd_per_subtask=0.015), 2, "the subtask's budget of 0.015 cost in USD is spent (0.02)"),
        (RunBudget(max_steps=4), 4, "the run's budget of 4 steps is spent (4)"),
    ],
)
async def test_a_spent_budget_ends_the_run_with_what_was_spent(
    client: Client, task_queue: str, budget: RunBudget, steps: int, says: str
) -> None:
    world = FakeWorld(costly, holds_after=99)
    world.tasks = [Subtask(id="only", title="t", postconditions=[DONE])]
    result = await run(client, task_queue, world, budget)
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert len(result.steps) == steps
    assert result.reason.startswith(says), result.reason
    # What was spent is in the result: compile + plan + every proposal.
    assert result.usage.model_calls == 2 + steps


async def test_the_wall_time_budget_is_checked_before_the_first_proposal(client: Client, task_queue: str) -> None:
    world = FakeWorld(costly)
    result = await run(client, task_queue, world, RunBudget(max_wall_time_s=0.000_001))
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert result.steps == [] and world.asked == []
    assert "wall-time seconds" in result.reason


class FlakyProvider:
    """Fails the first proposal of each step once, having spent tokens on it, then answers."""

    # Shared by every instance: a provider is built afresh for each activity attempt.
    failures: ClassVar[set[tuple[str, int]]] = set()

    def __init__(self, inner: ScriptedProvider) -> None:
        self._inner = inner

    async def interpret_goal(self, goal: str, tools: list[ToolSpec] | None = None):  # type: ignore[no-untyped-def]
        return await self._inner.interpret_goal(goal, tools)

    async def draft_plan(self, goal: str, summary: str, tools: list[ToolSpec]):  # type: ignore[no-untyped-def]
        return await self._inner.draft_plan(goal, summary, tools)

    async def propose(self, request: ProposeActionInput, tools: list[ToolSpec]) -> ProposeActionResult:
        key = (request.run_id, request.step)
        if key not in FlakyProvider.failures:
            FlakyProvider.failures.add(key)
            wasted = Usage(input_tokens=1000, model_calls=1, provider="flaky")
            raise ProviderUnavailable("429 Too Many Requests", usage=wasted)
        return await self._inner.propose(request, tools)


@pytest.fixture
def flaky(monkeypatch: pytest.MonkeyPatch) -> None:
    def build(config, deps):  # type: ignore[no-untyped-def]
        return FlakyProvider(ScriptedProvider(config.script_path))

    monkeypatch.setattr(model_calls, "build_provider", build)


@pytest.mark.usefixtures("flaky")
async def test_failed_attempts_count_in_the_durable_runtime(client: Client, task_queue: str, bugfix_task: Task) -> None:
    request = build_request(bugfix_task, "durable")
    async with build_worker(client, task_queue):
        result = await execute_run(client, request, task_queue)
    assert result.outcome == RunState.COMPLETED
    proposals = len(result.steps)
    # Every step's first attempt failed after spending 1,000 tokens; each was retried by Temporal.
    assert result.usage.model_calls == 2 + 2 * proposals
    assert result.usage.input_tokens >= 1000 * proposals


@pytest.mark.usefixtures("flaky")
async def test_failed_attempts_count_in_the_baseline(bugfix_task: Task) -> None:
    result = await BaselineLoop(lab_deps(), retry_delay_s=0).run(build_request(bugfix_task, "baseline"))
    assert result.outcome == RunState.COMPLETED
    proposals = len(result.steps)
    assert result.usage.model_calls == 2 * proposals
    assert result.usage.input_tokens >= 1000 * proposals


async def test_a_task_budget_does_not_carry_into_the_next_task(client: Client, task_queue: str) -> None:
    tasks = [
        Subtask(id="first", title="t", postconditions=[DONE]),
        Subtask(id="second", title="t", depends_on=["first"], postconditions=[DONE]),
    ]
    world = FakeWorld(lambda asked: ProposeActionResult(proposal=WRITE, usage=ONE_CALL), tasks=tasks, holds_after=2)
    result = await run(client, task_queue, world, RunBudget(max_steps_per_subtask=2, max_tokens_per_subtask=30))
    assert result.outcome == RunState.COMPLETED
    assert [s.subtask_id for s in result.steps] == ["first", "first", "second"]


FINISH = ActionProposal(kind="finish", thought="surely done")


async def test_refused_claims_of_done_end_the_run_at_their_budget(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(FINISH, FINISH, WRITE), holds_after=1)
    result = await run(client, task_queue, world, RunBudget(max_steps_per_subtask=10, max_refused_claims=2))
    # Two claims refused and no third step, though steps were left.
    assert [s.outcome for s in result.steps] == ["rejected", "rejected"]
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert "the subtask's budget of 2 refused claims of done is spent" in (result.reason or "")
    assert world.executed == []


async def test_a_refused_claim_in_one_subtask_does_not_carry_into_the_next(client: Client, task_queue: str) -> None:
    never = CommandExitCode(command="false")  # the fake check never passes this one
    tasks = [
        Subtask(id="first", title="t", postconditions=[DONE]),
        Subtask(id="second", title="t", depends_on=["first"], postconditions=[never]),
    ]
    answers = [FINISH, WRITE, FINISH, WRITE, FINISH, WRITE]
    world = FakeWorld(lambda asked: ProposeActionResult(proposal=answers[asked.step - 1], usage=ONE_CALL), tasks=tasks)
    result = await run(client, task_queue, world, RunBudget(max_refused_claims=2))
    # One refused claim in the first subtask; the second has its own two before the run ends.
    assert [s.outcome for s in result.steps] == ["rejected", "committed", "rejected", "committed", "rejected"]
    assert [s.subtask_id for s in result.steps] == ["first", "first", "second", "second", "second"]
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert "refused claims of done is spent" in (result.reason or "") and "'second'" in (result.reason or "")


async def test_without_a_budget_of_refused_claims_the_model_goes_on(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(FINISH, FINISH, FINISH, WRITE), holds_after=1)
    result = await run(client, task_queue, world, RunBudget(max_steps_per_subtask=10))
    assert [s.outcome for s in result.steps] == ["rejected"] * 3 + ["committed"]
    assert result.outcome == RunState.COMPLETED


def test_a_new_run_gets_the_lab_s_budget_of_refused_claims_unless_its_task_sets_one(bugfix_task: Task) -> None:
    assert build_request(bugfix_task, "durable").budget.max_refused_claims == REFUSED_CLAIMS
    assert build_request(bugfix_task, "durable", max_steps=5).budget.max_refused_claims == REFUSED_CLAIMS
    own = bugfix_task.spec.budget.model_copy(update={"max_refused_claims": 5})
    task = dataclasses.replace(bugfix_task, spec=bugfix_task.spec.model_copy(update={"budget": own}))
    assert build_request(task, "durable").budget.max_refused_claims == 5
