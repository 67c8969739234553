"""The small-model tier: tasks tagged `small`, within reach of a 0.5B model.

Each is tiny (a few short files, an explicit goal, a tight budget), and each is graded for
real: the scripted oracle solves it in both runtimes, judged by the one checker on the run's
own end state, and a run that finishes at once, doing nothing, fails in both.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from temporalio.client import Client

from agent.postconditions import check
from contracts import ProviderConfig, RunState
from lab.runs.catalog import list_tasks, load_task
from ops_service import OpsServiceProcess
from tests.lab_dependencies import lab_deps
from tests.runs import DO_NOTHING, both_runtimes
from tests.shipped_tasks import SHIPPED_TASKS

SMALL_TASKS = [task for task in SHIPPED_TASKS if task.startswith("small-")]
ORACLE_TOOLS = {"read_file", "write_file", "replace_in_file", "run_command", "issue_refund", "create_ticket"}


@pytest.fixture
def ops_url(service: OpsServiceProcess, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    return service.url


def test_the_small_tag_selects_the_tier() -> None:
    assert [task.spec.id for task in list_tasks() if "small" in task.spec.tags] == SMALL_TASKS


@pytest.mark.parametrize("task_id", SMALL_TASKS)
def test_a_small_task_is_small(task_id: str) -> None:
    task = load_task(task_id)
    assert {"coding", "ops"} & set(task.spec.tags)
    assert task.spec.budget.max_steps <= 10
    # A per-subtask cap below the run's would give the durable runtime fewer steps than the baseline.
    assert task.spec.budget.max_steps_per_subtask == task.spec.budget.max_steps
    files = [path for path in task.fixture_dir.rglob("*") if path.is_file()]
    assert 1 <= len(files) <= 6
    assert all(len(path.read_text(encoding="utf-8").splitlines()) < 60 for path in files)
    # The oracle uses the tools every model has, nothing made for it.
    assert task.script is not None
    used = {action.tool for planned in task.script.plan for action in planned.actions if action.kind == "tool_call"}
    assert used <= ORACLE_TOOLS, used - ORACLE_TOOLS
    assert len(task.script.actions_for(None)) <= task.spec.budget.max_steps


@pytest.mark.parametrize("task_id", SMALL_TASKS)
async def test_the_oracle_solves_it_in_both_runtimes(
    ops_url: str, client: Client, task_queue: str, task_id: str
) -> None:
    task = load_task(task_id)
    for request, result in await both_runtimes(task_id, client, task_queue):
        assert result.outcome == RunState.COMPLETED, (request.runtime, result.reason)
        assert Path(result.workspace) != task.fixture_dir
        # Judged apart from what the runtime says, on the run's real files and service tenant.
        judged = await check(lab_deps(), Path(result.workspace), task.spec.postconditions, request.world_id)
        assert judged.passed, (request.runtime, judged.failures())
        rejected = [step for step in result.steps if step.outcome != "committed"]
        assert rejected == [], [(request.runtime, step.step, step.reason) for step in rejected]
        assert len(result.steps) <= task.spec.budget.max_steps


@pytest.mark.parametrize("task_id", SMALL_TASKS)
async def test_doing_nothing_fails_in_both_runtimes(
    ops_url: str, client: Client, task_queue: str, task_id: str, tmp_path: Path
) -> None:
    task = load_task(task_id)
    script = tmp_path / "do_nothing.yaml"
    script.write_text(yaml.safe_dump(DO_NOTHING), encoding="utf-8")
    provider = ProviderConfig(kind="scripted", script_path=str(script))

    for request, result in await both_runtimes(task_id, client, task_queue, provider):
        assert result.outcome == RunState.FAILED, (request.runtime, result.reason)
        assert not result.succeeded
        judged = await check(lab_deps(), Path(result.workspace), task.spec.postconditions, request.world_id)
        assert not judged.passed, request.runtime
