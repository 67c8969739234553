"""Crashes with real processes: a worker in its own process, against a dev server with a history
file, is SIGKILLed at precise points; a fresh worker finishes the run. After each: exactly one
effect in the service's own state, a ledger that verifies, postconditions that hold.

The baseline under the same kill, restarted as a user would, is recorded, not judged: that
contrast is a result for the lab.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from temporalio.client import Client, WorkflowHandle

from agent.faults import FaultPlan, FaultPoint, FaultSpec, fired
from agent.ledger import read_events, verify_ledger
from agent.postconditions import check
from contracts import Approve, RunResult, RunState
from experiments.harness import LabCluster
from lab.runs.catalog import Task, load_task
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

pytestmark = pytest.mark.timeout(240)


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[LabCluster]:
    # This process judges the end state with the cluster's service: `cluster.dependencies`.
    async with LabCluster(tmp_path / "cluster") as running:
        yield running


def plan_file(tmp_path: Path, *faults: FaultSpec) -> Path:
    path = tmp_path / f"faults-{uuid.uuid4().hex[:6]}.json"
    FaultPlan(faults=list(faults)).save(path)
    return path


async def service_state(cluster: LabCluster, world: str) -> dict[str, list[dict[str, object]]]:
    async with httpx.AsyncClient(base_url=cluster.ops_url or "", timeout=10) as http:
        response = await http.get("/state", headers={"X-Tenant": world})
        response.raise_for_status()
        return response.json()


async def start_run(client: Client, task: Task) -> tuple[WorkflowHandle[AgentRunWorkflow, RunResult], str]:
    request = build_request(task, "durable")
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue="agent-lab")
    return handle, request.run_id


async def settled(cluster: LabCluster, run_id: str, result: RunResult, task: Task) -> None:
    """What must hold after any crash: the task done, its effects once, the ledger intact."""
    assert result.outcome == RunState.COMPLETED, result.reason
    judged = await check(cluster.dependencies, Path(result.workspace), task.spec.postconditions, world_id=run_id)
    assert judged.passed, judged.failures()
    state = await service_state(cluster, run_id)
    keys = [refund["idempotency_key"] for refund in state["refunds"]]
    assert len(keys) == len(set(keys)) == 1, state["refunds"]
    report = verify_ledger(lab_deps().ledgers.path(run_id))
    assert report.ok, report.first_error


async def wait_for_state(handle: WorkflowHandle, state: RunState, timeout_s: float = 60) -> None:
    async def poll() -> None:
        while (await handle.query(AgentRunWorkflow.progress, 1_000_000)).state != state:
            await asyncio.sleep(0.1)

    await asyncio.wait_for(poll(), timeout_s)


@pytest.mark.parametrize(
    ("point", "fault"),
    [
        ("model_call", FaultSpec(point=FaultPoint.MODEL_CALL, step=2)),
        ("after_effect", FaultSpec(point=FaultPoint.AFTER_EFFECT, tool="issue_refund")),
        ("before_effect", FaultSpec(point=FaultPoint.BEFORE_EFFECT, tool="issue_refund")),
        ("tool_execution", FaultSpec(point=FaultPoint.TOOL_EXECUTION, tool="create_ticket", delay_s=0)),
    ],
)
async def test_a_killed_worker_is_replaced_and_the_run_finishes_once(
    cluster: LabCluster, tmp_path: Path, point: str, fault: FaultSpec
) -> None:
    task = load_task("refund-duplicate-charge")
    plan = plan_file(tmp_path, fault)
    first = await cluster.start_worker(fault_plan=plan)
    assert cluster.client is not None
    handle, run_id = await start_run(cluster.client, task)

    assert await first.wait_exit(timeout_s=60) == -9, "the fault did not kill the worker"
    assert fired(plan) == [0]
    second = await cluster.start_worker(fault_plan=plan)
    result = await asyncio.wait_for(run_result(handle), timeout=120)

    await settled(cluster, run_id, result, task)
    events = read_events(lab_deps().ledgers.path(run_id))
    writers = {event.worker.split(":")[-1] for event in events}
    assert str(second.pid) in writers, "the fresh worker wrote the rest of the ledger"
    refund = next(e for e in events if e.type == "tool_result" and e.payload.get("tool") == "issue_refund")
    if point == "after_effect":
        assert refund.payload["result"]["recovered"] is True  # found by the probe, not paid again
    if point == "before_effect":
        # Killed with its intent recorded and nothing done: the probe finds no refund, and the
        # next attempt pays it, once.
        assert refund.payload["result"].get("recovered") is not True and refund.payload["result"]["ok"] is True


async def test_a_worker_killed_while_the_run_awaits_approval(cluster: LabCluster) -> None:
    task = load_task("refund-needs-approval")
    first = await cluster.start_worker()
    assert cluster.client is not None
    handle, run_id = await start_run(cluster.client, task)
    await wait_for_state(handle, RunState.AWAITING_APPROVAL)

    first.kill()
    await first.wait_exit()
    await cluster.start_worker()
    approved = subprocess.run(
        [sys.executable, "-m", "starter", "approve", run_id, "--approver", "ops-lead"],
        cwd=PROJECT_ROOT,
        env=cluster.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert approved.returncode == 0, approved.stderr
    result = await asyncio.wait_for(run_result(handle), timeout=120)

    await settled(cluster, run_id, result, task)
    assert [(a.approver, a.approved) for a in result.approvals] == [("ops-lead", True)]


async def test_the_server_restarts_in_the_middle_of_a_run(cluster: LabCluster) -> None:
    task = load_task("refund-needs-approval")
    await cluster.start_worker()
    assert cluster.client is not None
    handle, run_id = await start_run(cluster.client, task)
    await wait_for_state(handle, RunState.AWAITING_APPROVAL)

    await cluster.restart_server()
    progress = await handle.query(AgentRunWorkflow.progress, 1_000_000)
    assert progress.state == RunState.AWAITING_APPROVAL and progress.pending_approval is not None
    await handle.execute_update(
        AgentRunWorkflow.approve,
        Approve(approver="ops-lead", arguments_sha256=progress.pending_approval.arguments_sha256),
    )
    result = await asyncio.wait_for(run_result(handle), timeout=120)
    await settled(cluster, run_id, result, task)


async def test_the_server_restarts_while_steps_run(cluster: LabCluster) -> None:
    task = load_task("refund-duplicate-charge")
    await cluster.start_worker()
    assert cluster.client is not None
    handle, run_id = await start_run(cluster.client, task)
    while (await handle.query(AgentRunWorkflow.progress, 1_000_000)).step < 2:
        await asyncio.sleep(0.05)

    await cluster.restart_server()
    result = await asyncio.wait_for(run_result(handle), timeout=120)
    await settled(cluster, run_id, result, task)


async def test_the_baseline_under_the_same_kill(cluster: LabCluster, tmp_path: Path, data_dir: Path) -> None:
    """Killed after the refund went out, then run again by hand, as a user would: the lab
    records what happens (a lost run or a repeated effect); it is a result, not a failure."""
    trial = f"baseline-trial-{uuid.uuid4().hex[:8]}"
    plan = plan_file(tmp_path, FaultSpec(point=FaultPoint.AFTER_EFFECT, tool="issue_refund"))
    command = [
        sys.executable, "-m", "starter", "run", "--runtime", "baseline",
        "--task", "refund-duplicate-charge", "--trial-id", trial,
    ]  # fmt: skip
    killed = subprocess.run(
        command, cwd=PROJECT_ROOT, env=cluster.env(plan), capture_output=True, text=True, timeout=120
    )
    assert killed.returncode == -9, killed.stdout + killed.stderr
    rerun = subprocess.run(
        command, cwd=PROJECT_ROOT, env=cluster.env(plan), capture_output=True, text=True, timeout=120
    )

    state = await service_state(cluster, trial)
    refunds = [r for r in state["refunds"] if r["order_id"] == "o-1001"]
    observed = {
        "first_attempt": "killed by SIGKILL after the refund was issued",
        "rerun_exit_code": rerun.returncode,
        "refunds_on_o-1001": len(refunds),
        "duplicate_effects": max(0, len(refunds) - 1),
        "outcome": "repeated effect" if len(refunds) > 1 else ("lost run" if rerun.returncode else "no harm"),
    }
    (data_dir / "baseline-crash-contrast.json").write_text(json.dumps(observed, indent=2))
    print(f"\nbaseline under the after-effect kill: {observed}")
    assert refunds, "the first attempt did issue its refund before it died"
