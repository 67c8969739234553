"""Forking a recorded durable run after step K, and diffing two runs.

A fork reproduces steps 1..K without running them: no model call, no tool, no preparation of
a workspace from the fixture (its history schedules none of them); its workspace is the
parent's checkpoint after K; from K+1 it runs live, here with a script whose fix is wrong, and
`diff` shows where the two part. Bad input is one clear error.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent import checkpoints
from contracts import ProviderConfig, RunResult, RunSnapshot, RunState, StepRecord, SubtaskProgress, Turn, Usage
from contracts.errors import StarterError
from contracts.plan import Plan, Subtask
from host.build import build_worker
from lab.runs.catalog import load_task
from lab.runs.fork import fork_request, snapshot_after
from lab.runs.run_diff import diff_runs, read_run
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT, in_project
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

WRONG_FIX = Path(__file__).parent / "scripts" / "bugfix_wrong_fix.yaml"

pytestmark = pytest.mark.timeout(180)


def _decided(steps: list[StepRecord]) -> list[dict[str, object]]:
    """What a step proposed, was told and did: all but its usage (a live step's timings)."""
    return [step.model_dump(exclude={"usage"}) for step in steps]


async def _scheduled(client: Client, run_id: str) -> list[str]:
    names = []
    async for event in client.get_workflow_handle(run_id).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            names.append(event.activity_task_scheduled_event_attributes.activity_type.name)
    return names


@pytest.fixture
async def parent(dev_env: WorkflowEnvironment, task_queue: str) -> RunResult:
    """A recorded bugfix-median run: run the tests, read the file, fix it (3 steps)."""
    async with build_worker(dev_env.client, task_queue):
        result = await execute_run(dev_env.client, build_request(load_task("bugfix-median"), "durable"), task_queue)
    assert result.outcome == RunState.COMPLETED and len(result.steps) == 3, result
    return result


async def test_a_fork_takes_steps_1_to_k_from_the_record_and_goes_on_live(
    dev_env: WorkflowEnvironment, task_queue: str, parent: RunResult
) -> None:
    client, deps = dev_env.client, lab_deps()
    wrong = ProviderConfig(kind="scripted", script_path=in_project(WRONG_FIX))
    async with build_worker(client, task_queue):
        same = await fork_request(client, deps, parent.run_id, 2, None)
        diverging = await fork_request(client, deps, parent.run_id, 1, wrong)
        assert same.fork is not None and same.fork.parent_run_id == parent.run_id and same.fork.from_step == 2
        same_result = await execute_run(client, same, task_queue)
        diverging_result = await execute_run(client, diverging, task_queue)

    # The same script from step 3: the same run, with steps 1-2 carried over, not run again.
    assert same_result.outcome == RunState.COMPLETED
    assert same_result.steps[:2] == parent.steps[:2]  # carried over as they were, usage and all
    assert _decided(same_result.steps) == _decided(parent.steps)  # step 3 ran again, as it did
    scheduled = await _scheduled(client, same.run_id)
    assert "prepare_fork" in scheduled
    assert not {"prepare_workspace", "compile_goal", "draft_plan", "plan"} & set(scheduled), scheduled
    proposals = [name for name in scheduled if "propose" in name]
    assert len(proposals) == len(parent.steps) - 2, scheduled  # step 3's only
    assert len([name for name in await _scheduled(client, parent.run_id) if "propose" in name]) == 3
    # Its workspace started as the parent's after step 2: the parent's commits up to that
    # checkpoint are its own, its step 3 a commit on top of them.
    parent_commits = [sha for sha, _ in checkpoints.history(lab_deps().checkpoints, Path(parent.workspace))]
    fork_commits = [sha for sha, _ in checkpoints.history(lab_deps().checkpoints, Path(same_result.workspace))]
    assert fork_commits[1:] == parent_commits[parent_commits.index(same.fork.checkpoint) :]
    assert Path(same_result.workspace) != Path(parent.workspace)

    # The wrong fix from step 2 on: the run parts from its parent at step 3 and fails.
    assert diverging_result.steps[:1] == parent.steps[:1]
    assert diverging_result.outcome != RunState.COMPLETED
    diff = diff_runs(read_run(deps.ledgers, parent.run_id), read_run(deps.ledgers, diverging.run_id))
    assert diff.first_difference == 3
    assert diff.files == ["textstats/stats.py"]
    assert read_run(deps.ledgers, diverging.run_id).ancestry == [(parent.run_id, 1)]
    assert (
        diff_runs(read_run(deps.ledgers, parent.run_id), read_run(deps.ledgers, same.run_id)).first_difference is None
    )


async def test_forking_what_cannot_be_forked_is_one_clear_error(
    dev_env: WorkflowEnvironment, task_queue: str, parent: RunResult
) -> None:
    client, deps = dev_env.client, lab_deps()
    async with build_worker(client, task_queue):
        with pytest.raises(StarterError, match=r"^no run 'no-such-run' on this Temporal server$"):
            await fork_request(client, deps, "no-such-run", 1, None)
        # A baseline run is no workflow: said as such, not as a run that is missing.
        with pytest.raises(
            StarterError, match=r"^baseline-bugfix-median-0123abcd is a baseline run: .* no Temporal hist"
        ):
            await fork_request(client, deps, "baseline-bugfix-median-0123abcd", 1, None)
        with pytest.raises(StarterError, match=r"has steps 1\.\.3: there is no step 4 to fork after"):
            await fork_request(client, deps, parent.run_id, 4, None)
        gone = checkpoints.repository(lab_deps().checkpoints, Path(parent.workspace))
        shutil.move(gone, gone.with_name(gone.name + ".moved"))
        try:
            with pytest.raises(StarterError, match="checkpoints are gone"):
                await fork_request(client, deps, parent.run_id, 1, None)
        finally:
            shutil.move(gone.with_name(gone.name + ".moved"), gone)


def test_diff_of_unrelated_or_unknown_runs_is_exit_2_with_one_line(parent: RunResult) -> None:
    deps = lab_deps()

    def diff(a: str, b: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "starter", "diff", a, b], cwd=PROJECT_ROOT, capture_output=True, text=True
        )

    missing = diff(parent.run_id, "no-such-run")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1
    assert missing.stderr.startswith("error: no run 'no-such-run': no ledger at ")
    with pytest.raises(StarterError, match=r"^unrelated runs: "):
        other = read_run(deps.ledgers, parent.run_id)
        other.task = "rename-refactor"
        diff_runs(read_run(deps.ledgers, parent.run_id), other)
    itself = diff(parent.run_id, parent.run_id)
    assert itself.returncode == 0 and "the same 3 steps in both" in itself.stdout


def _step(number: int, task: str, outcome: str = "committed", postconditions: str = "") -> StepRecord:
    return StepRecord(
        step=number, subtask_id=task, outcome=outcome, postconditions=postconditions, usage=Usage(model_calls=1)
    )  # type: ignore[arg-type]


def test_the_state_after_step_k_is_cut_from_the_final_one() -> None:
    plan = Plan(subtasks=[Subtask(id="one", title="one"), Subtask(id="two", title="two")])
    steps = [_step(1, "one"), _step(2, "one", postconditions="1/1 postconditions hold"), _step(3, "two", "rejected")]
    turns = [Turn(step=3, proposal=None, outcome="rejected", feedback="exact words")]
    final = RunSnapshot(
        state=RunState.FAILED, step=3, subtask=SubtaskProgress(id="two", index=1, turns=turns), plan=plan, steps=steps,
    )  # fmt: skip
    # After step 1: still in task one, its one turn rebuilt from the record.
    one = snapshot_after(final, 1, subtask_ended=False)
    assert (one.step, one.subtask.id, one.subtask.index, one.state) == (1, "one", 0, RunState.COMMITTED)
    assert [turn.step for turn in one.subtask.turns] == [1] and one.usage.model_calls == 1
    # After step 2, which ended task one: task two starts, with no turns.
    two = snapshot_after(final, 2, subtask_ended=True)
    assert (two.subtask.id, two.subtask.index, two.subtask.turns, two.subtask.usage) == ("two", 1, [], Usage())
    # After step 3: the parent's own turn, word for word.
    three = snapshot_after(final, 3, subtask_ended=False)
    assert three.subtask.turns[0].feedback == "exact words" and three.state == RunState.REJECTED
    zero = snapshot_after(final, 0, subtask_ended=False)
    assert (zero.step, zero.subtask.index, zero.state, zero.steps) == (0, 0, RunState.PLANNING, [])
