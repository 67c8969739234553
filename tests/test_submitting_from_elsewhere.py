"""`starter run --no-worker` from outside the workers' containers (compose's workers, the
starter on the host, the data directory shared as a bind mount): the run's input names the
task's fixture and script relative to the project, so a worker in its own checkout (a
container's /app) reads them there; and where the starter cannot see the run's workspace at the
path the workers gave it (theirs is /data/...), it reports the check the run's workflow made on
a worker at its end."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from contracts import PostconditionResult, RunResult, RunState
from contracts.postconditions import PostconditionOutcome
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT, in_project, project_path
from starter.run_command import judge
from tests.lab_dependencies import lab_deps
from tests.worker_process import start_worker_process

_NOT_COPIED = shutil.ignore_patterns(".git", ".venv", "data", ".*_cache", "__pycache__")


def test_a_run_names_its_files_relative_to_the_project() -> None:
    task = load_task("bugfix-median")
    request = build_request(task, "durable")
    assert request.fixture_dir == in_project(task.fixture_dir) and not Path(request.fixture_dir).is_absolute()
    assert request.provider.script_path and not Path(request.provider.script_path).is_absolute()
    assert project_path(request.fixture_dir) == task.fixture_dir.resolve()
    assert project_path(request.provider.script_path) == task.script_path.resolve()
    outside = Path("/tmp/elsewhere/fixture")
    assert in_project(outside) == str(outside) and project_path(str(outside)) == outside


@pytest.mark.timeout(180)
async def test_a_worker_in_another_checkout_reads_the_run_s_files_in_its_own(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """The worker runs from a copy of the project whose fixture has one file more: the run's
    workspace has it, so the worker read its own checkout's fixture, not the starter's."""
    checkout = tmp_path / "app"
    shutil.copytree(PROJECT_ROOT, checkout, ignore=_NOT_COPIED, symlinks=True)
    task = load_task("bugfix-median")
    fixture_in_copy = checkout / in_project(task.fixture_dir)
    (fixture_in_copy / "FROM_THE_WORKERS_CHECKOUT").write_text("the container's copy of the project\n")
    # One data directory for both, as the bind mount gives them: the starter reads the run's
    # result from the artifact store there (host/converter.py).
    data = tmp_path / "data"
    address = dev_env.client.service_client.config.target_host
    worker, _ = await start_worker_process(address, checkout=checkout, env={"AGENT_LAB_DATA": str(data)})
    try:
        done = subprocess.run(
            [sys.executable, "-m", "starter", "run", "--task", "bugfix-median", "--no-worker"],
            cwd=PROJECT_ROOT,
            env={**_without_temporal(), "TEMPORAL_ADDRESS": address, "AGENT_LAB_DATA": str(data)},
            capture_output=True,
            text=True,
            timeout=150,
        )
    finally:
        worker.kill()
        await worker.wait()
    assert done.returncode == 0 and "ok: COMPLETED" in done.stdout, done.stdout + done.stderr
    [workspace] = (data / "workspaces").iterdir()
    assert (workspace / "FROM_THE_WORKERS_CHECKOUT").is_file()
    assert not (task.fixture_dir / "FROM_THE_WORKERS_CHECKOUT").exists()


def _without_temporal() -> dict[str, str]:
    return {key: value for key, value in os.environ.items() if not key.startswith(("TEMPORAL_", "AGENT_LAB_"))}


def _result(workspace: Path, acceptance: PostconditionResult | None) -> RunResult:
    return RunResult(
        run_id="r",
        runtime="durable",
        task_id="bugfix-median",
        outcome=RunState.COMPLETED if acceptance else RunState.BUDGET_EXHAUSTED,
        workspace=str(workspace),
        acceptance=acceptance,
    )


async def test_a_workspace_out_of_sight_isjudged_by_the_run_s_own_end_check(tmp_path: Path) -> None:
    task = load_task("bugfix-median")
    request = build_request(task, "durable")
    elsewhere = tmp_path / "on-another-machine"
    held = PostconditionResult(outcomes=[PostconditionOutcome(description="tests pass", passed=True)])
    judged, where = await judge(lab_deps(), _result(elsewhere, held), task, request)
    assert judged == held and where == f"(judged on a worker: the workspace {elsewhere} is on the workers' file system)"

    judged, where = await judge(lab_deps(), _result(elsewhere, None), task, request)
    assert not judged.passed and len(judged.outcomes) == len(task.spec.postconditions)
    assert all(outcome.detail.startswith("not checked") for outcome in judged.outcomes)
    assert where.startswith("(not judged:")


async def test_a_workspace_in_sight_isjudged_here_whatever_the_run_says(tmp_path: Path) -> None:
    """The run's own check is a fallback, never preferred: here the fixture itself, unfixed, is
    judged, and fails, though the result claims every postcondition held."""
    task = load_task("bugfix-median")
    request = build_request(task, "durable")
    claimed = PostconditionResult(outcomes=[PostconditionOutcome(description="tests pass", passed=True)])
    judged, where = await judge(lab_deps(), _result(task.fixture_dir, claimed), task, request)
    assert where == "" and not judged.passed
