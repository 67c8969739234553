"""One host-disk budget per run (issue 31): the red team's checkpoint repository grew 32 -> 64 ->
96 MiB over three steps and one command stored a 64 MiB artifact, each within its per-command
quota. A run now counts what it holds (its workspace, its checkpoint repository, the artifacts
its results refer to: contracts.DiskUse) against RunBudget.max_disk_bytes before every
proposal, and a command may add no more than what is left of it."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from temporalio.client import Client

from agent import disk_use
from agent.budget import Spent, disk_exhausted, disk_left, exhausted, for_subtask
from agent.execution import execute
from agent.sandbox.base import Limits, MiB
from agent.sandbox.bubblewrap import available, unavailable_reason
from baseline import BaselineLoop
from contracts import (
    ActionProposal,
    DiskUse,
    ExecuteToolInput,
    ProviderConfig,
    ResourceLimit,
    RunBudget,
    RunRequest,
    RunState,
    Usage,
)
from host.build import build_worker
from settings import PROJECT_ROOT
from tests.conftest import sandbox_workspace
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

SCRIPT = PROJECT_ROOT / "tests" / "scripts" / "disk_budget.yaml"
NOTHING = Spent(0, Usage(), 0.0)
sandboxed = pytest.mark.skipif(not available(), reason=f"bubblewrap cannot sandbox here: {unavailable_reason()}")


def test_the_disk_budget_is_spent_by_the_three_parts_together() -> None:
    budget = RunBudget(max_disk_bytes=48 * MiB)
    under = DiskUse(workspace_bytes=20 * MiB, checkpoint_bytes=20 * MiB, artifact_bytes=7 * MiB)
    over = under.with_artifact(1 * MiB)
    assert exhausted(budget, Spent(1, Usage(), 0.0, disk=under), NOTHING, 12) is None
    assert exhausted(budget, Spent(1, Usage(), 0.0, disk=over), NOTHING, 12) == (
        "the run's budget of 48.0 MiB of host disk is spent "
        "(48.0 MiB: workspace 20.0 MiB, checkpoints 20.0 MiB, artifacts 8.0 MiB)"
    )
    # A run that does not count its disk (one started before the budget) is never stopped by it.
    assert exhausted(budget, Spent(1, Usage(), 0.0), NOTHING, 12) is None
    assert disk_exhausted(RunBudget(max_disk_bytes=None), over) is None
    # What a command may add, and what a subtask gets: the rest of the run's.
    assert disk_left(budget, under) == 1 * MiB and disk_left(budget, over) == 0
    assert disk_left(RunBudget(max_disk_bytes=None), under) is None
    assert for_subtask(budget, Spent(1, Usage(), 0.0, disk=under), 12).max_disk_bytes == 1 * MiB
    # A workspace measured again replaces the last measure; the artifacts are the run's count.
    measured = under.measured(DiskUse(workspace_bytes=1, checkpoint_bytes=2, artifact_bytes=999))
    assert measured == DiskUse(workspace_bytes=1, checkpoint_bytes=2, artifact_bytes=7 * MiB)


def test_a_commands_limits_are_cut_to_what_is_left_of_the_run() -> None:
    quota = Limits()
    assert quota.within(None) == quota
    cut = quota.within(8 * MiB)
    assert (cut.disk_bytes, cut.artifact_bytes) == (8 * MiB, 8 * MiB)
    assert quota.within(1024 * 1024 * MiB) == quota  # never more than the per-command quota


@sandboxed
async def test_a_command_is_stopped_at_what_is_left_of_the_runs_disk_budget(tmp_path: Path) -> None:
    """The per-command quota (512 MiB) would let it write its 20 MiB; 8 MiB are left of the run's."""
    workspace = sandbox_workspace(tmp_path)
    write = ActionProposal(tool="run_command", arguments={"command": "head -c 20971520 /dev/urandom > big.bin"})
    run_id = f"disk-left-{uuid.uuid4().hex[:8]}"

    stopped = await execute(
        lab_deps(),
        ExecuteToolInput(workspace=str(workspace), proposal=write, run_id=run_id, step=1, disk_left_bytes=8 * MiB),
    )
    assert not stopped.ok and stopped.limit == ResourceLimit.DISK, stopped
    assert "what was left of the run's host-disk budget (8.0 MiB" in (stopped.error or "")
    assert (workspace / "big.bin").stat().st_size <= 8 * MiB

    whole = await execute(lab_deps(), ExecuteToolInput(workspace=str(workspace), proposal=write, run_id=run_id, step=2))
    assert whole.ok and (workspace / "big.bin").stat().st_size == 20 * MiB


@sandboxed
async def test_a_commands_stored_output_is_cut_to_what_is_left(tmp_path: Path) -> None:
    workspace = sandbox_workspace(tmp_path)
    flood = ActionProposal(tool="run_command", arguments={"command": "head -c 8388608 /dev/urandom | base64"})
    asked = ExecuteToolInput(
        workspace=str(workspace), proposal=flood, run_id=f"disk-out-{uuid.uuid4().hex[:8]}", step=1
    )
    cut = await execute(lab_deps(), asked.model_copy(update={"disk_left_bytes": 2 * MiB}))
    assert cut.ok and cut.artifact is not None and cut.artifact.size_bytes == 2 * MiB
    # Without a run budget the per-command cap (64 MiB) keeps it whole (8 MiB, as base64).
    whole = await execute(lab_deps(), asked.model_copy(update={"step": 2}))
    assert whole.artifact is not None and whole.artifact.size_bytes > 10 * MiB


def request(tmp_path: Path, runtime: str, budget: RunBudget) -> RunRequest:
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "README.md").write_text("Write three blocks of random data.\n")
    return RunRequest(
        run_id=f"{runtime}-disk-budget-{uuid.uuid4().hex[:8]}",
        runtime=runtime,  # type: ignore[arg-type]
        task_id="disk-budget",
        goal="Write three blocks of random data.",
        fixture_dir=str(fixture),
        acceptance=[],
        provider=ProviderConfig(kind="scripted", script_path=str(SCRIPT)),
        budget=budget,
    )


def says_every_part(reason: str) -> None:
    assert "the run's budget of" in reason and "of host disk is spent" in reason, reason
    assert "workspace " in reason and "checkpoints " in reason and "artifacts " in reason, reason


@sandboxed
async def test_a_durable_run_over_its_disk_budget_ends_before_its_third_step(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    """Each step adds ~6 MiB to the workspace, ~6 MiB to the checkpoints and ~1 MiB of stored
    output: ~13 MiB after step 1, ~26 MiB after step 2, over 24 MiB."""
    budget = RunBudget(max_disk_bytes=24 * MiB)
    asked = request(tmp_path, "durable", budget)
    async with build_worker(client, task_queue):
        result = await execute_run(client, asked, task_queue)
    assert result.outcome == RunState.BUDGET_EXHAUSTED, result.reason
    assert [step.outcome for step in result.steps] == ["committed", "committed"]
    says_every_part(result.reason)
    assert result.reason.endswith("in subtask 'fill' after 2 steps"), result.reason
    disk = result.disk
    assert disk is not None and disk.total_bytes >= budget.max_disk_bytes
    # Each part holds what the steps left: two 6 MiB files, stored again by the checkpoints.
    assert disk.workspace_bytes >= 12 * MiB and disk.checkpoint_bytes >= 12 * MiB
    assert 2 * MiB <= disk.artifact_bytes < 3 * MiB
    assert not (Path(result.workspace) / "c.bin").exists()


@sandboxed
async def test_a_baseline_run_over_its_disk_budget_ends_before_its_third_step(tmp_path: Path) -> None:
    """No checkpoints here: ~7 MiB after step 1; step 2's write is stopped at what is left of
    12 MiB, and the run holds its whole budget."""
    budget = RunBudget(max_disk_bytes=12 * MiB)
    result = await BaselineLoop(lab_deps(), retry_delay_s=0).run(request(tmp_path, "baseline", budget))
    assert result.outcome == RunState.BUDGET_EXHAUSTED, result.reason
    assert [step.outcome for step in result.steps] == ["committed", "rejected"]
    assert "what was left of the run's host-disk budget" in result.steps[1].reason, result.steps[1]
    says_every_part(result.reason)
    assert result.reason.endswith("after 2 steps"), result.reason
    assert result.disk is not None and result.disk.total_bytes >= budget.max_disk_bytes
    assert (Path(result.workspace) / "b.bin").stat().st_size < 6 * MiB
    assert not (Path(result.workspace) / "c.bin").exists()


def test_a_workspace_too_large_to_measure_in_time_ends_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A tree of millions of entries must not hold the worker's thread at every step: past its
    deadline the measure stops, and a run whose disk cannot be counted is over its budget."""
    workspace = tmp_path / "ws"
    for index in range(3):
        (workspace / f"d{index}").mkdir(parents=True)
    monkeypatch.setattr(disk_use, "MEASURE_DEADLINE_S", -1.0)
    measured = disk_use.measure(lab_deps().checkpoints, workspace)
    assert measured.uncounted == "its workspace could not be measured within -1 s"
    said = disk_exhausted(RunBudget(max_disk_bytes=MiB), measured)
    assert said is not None and "cannot be held to its budget of 1.0 MiB" in said
