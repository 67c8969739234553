"""Both runtimes, real activities, both benchmark tasks, judged on the real end state.

The durable runtime runs on Temporal's time-skipping test server with the lab's own worker.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
from temporalio.client import Client

from agent.postconditions import check
from baseline import BaselineLoop
from contracts import ProviderConfig, RunRequest, RunResult, RunState
from host.build import build_worker
from lab.runs.catalog import Task, load_task
from lab.runs.run_request import build_request
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

WRONG_FIX = Path(__file__).parent / "scripts" / "bugfix_wrong_fix.yaml"


def fingerprint(directory: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(directory)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


async def run_durable(client: Client, task_queue: str, request: RunRequest, **worker_options: object) -> RunResult:
    async with build_worker(client, task_queue, **worker_options):
        return await execute_run(client, request, task_queue)


async def run_runtime(
    runtime: str, client: Client, task_queue: str, request: RunRequest, **worker_options: object
) -> RunResult:
    if runtime == "durable":
        return await run_durable(client, task_queue, request, **worker_options)
    return await BaselineLoop(lab_deps()).run(request)


@pytest.mark.parametrize("runtime", ["durable", "baseline"])
@pytest.mark.parametrize("task_id", ["rename-refactor", "bugfix-median"])
async def test_each_runtime_solves_each_task(
    client: Client, task_queue: str, runtime: str, task_id: str, tmp_path: Path
) -> None:
    task = load_task(task_id)
    before = fingerprint(task.fixture_dir)
    request = build_request(task, runtime)  # type: ignore[arg-type]

    result = await run_runtime(runtime, client, task_queue, request)

    assert result.outcome == RunState.COMPLETED, result.reason
    assert result.runtime == runtime
    # Judged independently of what the runtime says, on the real files.
    judged = await check(lab_deps(), Path(result.workspace), task.spec.postconditions)
    assert judged.passed, judged.failures()
    # The work happened in a fresh copy; the fixture itself is untouched and still broken/old.
    assert Path(result.workspace) != task.fixture_dir
    assert fingerprint(task.fixture_dir) == before
    pristine = tmp_path / "pristine"
    shutil.copytree(task.fixture_dir, pristine)
    assert not (await check(lab_deps(), pristine, task.spec.postconditions)).passed
    assert result.usage.model_calls >= len(result.steps)


async def test_durable_runs_the_plan_in_dependency_order(client: Client, task_queue: str, rename_task: Task) -> None:
    result = await run_durable(client, task_queue, build_request(rename_task, "durable"))
    assert result.plan == ["rename-definition", "update-callers"]
    assert result.steps[0].subtask_id == "rename-definition"
    assert all(s.outcome == "committed" for s in result.steps)
    # The durable run stops as soon as the postconditions hold: fewer steps than the script.
    assert len(result.steps) < 9


@pytest.mark.parametrize("runtime", ["durable", "baseline"])
async def test_a_wrong_fix_is_reported_as_failure(
    client: Client, task_queue: str, bugfix_task: Task, runtime: str
) -> None:
    """The scripted model claims success; the end state says otherwise, and both runtimes see it."""
    request = build_request(bugfix_task, runtime).model_copy(  # type: ignore[arg-type]
        update={"provider": ProviderConfig(kind="scripted", script_path=str(WRONG_FIX))}
    )
    result = await run_runtime(runtime, client, task_queue, request)

    assert result.outcome == RunState.FAILED
    assert not result.succeeded
    judged = await check(lab_deps(), Path(result.workspace), bugfix_task.spec.postconditions)
    assert not judged.passed
    assert [f.description for f in judged.failures()] == ["`python -m pytest -q` exits 0"]
    stats = Path(result.workspace, "textstats", "stats.py").read_text()
    assert "return ordered[middle - 1]" in stats  # the wrong fix really was applied
    if runtime == "durable":
        # The claim of "done" was checked and rejected before the model gave up.
        assert any("claimed done, but" in s.reason for s in result.steps)
    else:
        assert result.reason.startswith("acceptance failed")


@pytest.mark.parametrize("task_id", ["rename-refactor", "bugfix-median"])
async def test_durable_runs_in_both_worker_lanes(
    client: Client, task_queue: str, task_id: str, worker_options: dict[str, object]
) -> None:
    """In the replaying lane the worker caches nothing: every workflow task replays the run's
    whole history, so any nondeterminism in workflow code fails here."""
    task = load_task(task_id)
    result = await run_durable(client, task_queue, build_request(task, "durable"), **worker_options)
    assert result.outcome == RunState.COMPLETED, result.reason
    assert (await check(lab_deps(), Path(result.workspace), task.spec.postconditions)).passed
