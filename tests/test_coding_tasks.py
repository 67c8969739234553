"""The coding tasks past the first two: feature-slugify, config-migration, dependent-subtasks
and long-horizon.

Each fixture is broken or incomplete as shipped (its task's postconditions do not hold on a
pristine copy), and each runtime solves the task end to end with the scripted oracle, judged
by the one checker on the run's own workspace. A task's two runs go side by side and are
kept for the module, so the tests that look closer at a run (its length, its plan order)
do not pay for it again.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from temporalio.client import Client

from agent.postconditions import check
from baseline import BaselineLoop
from contracts import FileContains, Plan, RunRequest, RunResult, RunState, StepRecord
from contracts.script import Script
from host.build import build_worker
from lab.runs.catalog import Task, load_task
from lab.runs.run_request import build_request
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

NEW_TASKS = ["feature-slugify", "config-migration", "dependent-subtasks", "long-horizon"]
FULL_SUITE = "`python -m pytest -q` exits 0"


@dataclass(frozen=True)
class Solved:
    baseline: RunResult
    durable: RunResult


_solved: dict[str, Solved] = {}


async def run_durable(client: Client, task_queue: str, request: RunRequest) -> RunResult:
    async with build_worker(client, task_queue):
        return await execute_run(client, request, task_queue)


async def solve(task: Task, client: Client, task_queue: str) -> Solved:
    """Both runtimes on the task, at the same time; once per task for the whole module."""
    if task.spec.id not in _solved:
        baseline, durable = await asyncio.gather(
            BaselineLoop(lab_deps(), retry_delay_s=0).run(build_request(task, "baseline")),
            run_durable(client, task_queue, build_request(task, "durable")),
        )
        _solved[task.spec.id] = Solved(baseline=baseline, durable=durable)
    return _solved[task.spec.id]


def scripted_plan(task: Task) -> Plan:
    return Script.model_validate(yaml.safe_load(task.script_path.read_text(encoding="utf-8"))).as_plan()


@pytest.mark.parametrize("task_id", NEW_TASKS)
async def test_the_pristine_fixture_does_not_pass(task_id: str, tmp_path: Path) -> None:
    task = load_task(task_id)
    assert "coding" in task.spec.tags
    pristine = tmp_path / "pristine"
    shutil.copytree(task.fixture_dir, pristine)

    judged = await check(lab_deps(), pristine, task.spec.postconditions)

    assert not judged.passed
    # Red before the work, because of the work: the suite fails (or cannot even import).
    suite = next(outcome for outcome in judged.outcomes if outcome.description == FULL_SUITE)
    assert not suite.passed
    assert suite.detail.startswith(("exit 1", "exit 2")), suite.detail
    # The guards against weakened tests quote the shipped tests word for word.
    guards = [p for p in task.spec.postconditions if isinstance(p, FileContains) and p.path.startswith("tests/")]
    shipped = [p for p in guards if (task.fixture_dir / p.path).is_file()]
    assert shipped, "no guard on the tests the fixture ships"
    assert (await check(lab_deps(), pristine, shipped)).passed


@pytest.mark.parametrize("task_id", NEW_TASKS)
async def test_both_runtimes_solve_the_task(client: Client, task_queue: str, task_id: str) -> None:
    task = load_task(task_id)
    solved = await solve(task, client, task_queue)

    for result in (solved.baseline, solved.durable):
        assert result.outcome == RunState.COMPLETED, result.reason
        assert Path(result.workspace) != task.fixture_dir
        # Judged independently of what the runtime says, on the run's real files.
        judged = await check(lab_deps(), Path(result.workspace), task.spec.postconditions)
        assert judged.passed, judged.failures()
    # Every scripted action ran (and, in the durable run, passed the verifier): none rejected.
    for result in (solved.baseline, solved.durable):
        rejected = [step for step in result.steps if step.outcome != "committed"]
        assert rejected == [], [(result.runtime, step.step, step.reason) for step in rejected]
    # The durable run did every subtask of the script, each in one piece.
    plan = scripted_plan(task)
    assert sorted(solved.durable.plan) == sorted(planned.id for planned in plan.subtasks)
    assert [task_id for task_id, _ in _runs(solved.durable)] == solved.durable.plan


async def test_long_horizon_is_long_in_both_runtimes(client: Client, task_queue: str) -> None:
    task = load_task("long-horizon")
    solved = await solve(task, client, task_queue)

    assert len(solved.durable.steps) >= 15
    assert len(solved.baseline.steps) >= 15
    assert len(solved.durable.steps) <= task.spec.budget.max_steps
    assert len(solved.baseline.steps) <= task.spec.budget.max_steps
    # No module is done in one edit: each subtask's postconditions hold only after several.
    per_task = Counter(step.subtask_id for step in solved.durable.steps)
    annotated = {task_id: count for task_id, count in per_task.items() if task_id.startswith("annotate-")}
    assert len(annotated) == 8
    assert all(3 <= count <= task.spec.budget.max_steps_per_subtask for count in annotated.values()), annotated


async def test_dependent_subtasks_run_in_topological_order(client: Client, task_queue: str) -> None:
    task = load_task("dependent-subtasks")
    plan = scripted_plan(task)
    depends_on = {planned.id: set(planned.depends_on) for planned in plan.subtasks}
    # A real DAG: at least three dependent tasks, one of them on two others, declared out of order.
    assert sum(1 for deps in depends_on.values() if deps) >= 3
    assert any(len(deps) >= 2 for deps in depends_on.values())
    assert [planned.id for planned in plan.subtasks] != [planned.id for planned in plan.topological_order()]
    assert all(planned.postconditions for planned in plan.subtasks)

    solved = await solve(task, client, task_queue)

    order = solved.durable.plan
    assert sorted(order) == sorted(depends_on)
    for position, task_id in enumerate(order):
        assert depends_on[task_id] <= set(order[:position]), f"{task_id} ran before {depends_on[task_id]}"
    # The steps followed that order, and each task ended on its own postconditions holding.
    runs = _runs(solved.durable)
    assert [task_id for task_id, _ in runs] == order
    for task_id, steps in runs:
        held = re.fullmatch(r"(\d+)/(\d+) postconditions hold", steps[-1].postconditions)
        assert held and held[1] == held[2], (task_id, steps[-1].postconditions)


def _runs(result: RunResult) -> list[tuple[str, list[StepRecord]]]:
    """The run's steps grouped into consecutive runs of one subtask."""
    runs: list[tuple[str, list[StepRecord]]] = []
    for step in result.steps:
        if runs and runs[-1][0] == step.subtask_id:
            runs[-1][1].append(step)
        else:
            runs.append((step.subtask_id, [step]))
    return runs
