"""`pending`, `approve`, `deny`, `ledger verify` and `replay` as a person runs them, against a
real dev server and a worker in its own process. Bad decisions get one line and change nothing."""

from __future__ import annotations

import asyncio
import json
import shlex
import subprocess
import sys
from collections.abc import AsyncIterator

import pytest

from contracts import TASK_QUEUE, RunResult, RunState
from experiments.harness import LabCluster
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps
from tests.test_cli import assert_one_line_error
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

pytestmark = pytest.mark.timeout(180)


@pytest.fixture(scope="module")
async def cluster(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[LabCluster]:
    async with LabCluster(tmp_path_factory.mktemp("approvals")) as running:
        await running.start_worker()
        yield running


def starter(cluster: LabCluster, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "starter", *args],
        cwd=PROJECT_ROOT,
        env=cluster.env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


async def waiting_run(cluster: LabCluster) -> str:
    assert cluster.client is not None
    request = build_request(load_task("refund-needs-approval"), "durable")
    handle = await cluster.client.start_workflow(
        AgentRunWorkflow.run, request, id=request.run_id, task_queue="agent-lab"
    )
    while (await handle.query(AgentRunWorkflow.progress, 1_000_000)).state != RunState.AWAITING_APPROVAL:
        await asyncio.sleep(0.05)
    return request.run_id


async def test_pending_approve_and_the_refusals(cluster: LabCluster) -> None:
    run_id = await waiting_run(cluster)

    listed = await asyncio.to_thread(starter, cluster, "pending")
    assert listed.returncode == 0
    assert run_id in listed.stdout and "issue_refund" in listed.stdout and "approval_rule" in listed.stdout
    digest = listed.stdout.split("arguments sha256: ")[1].split()[0]

    wrong = await asyncio.to_thread(starter, cluster, "approve", run_id, "--sha256", "0" * 64)
    # Refused here, before anything is said to be approved, showing both digests.
    assert_one_line_error(wrong, "refused", "approve what `pending` shows", "0" * 64, digest)
    assert "approving step" not in wrong.stdout
    lapsed = await asyncio.to_thread(starter, cluster, "approve", run_id, "--expires-in", "0s")
    assert_one_line_error(lapsed, "refused", "expired")
    bad_duration = await asyncio.to_thread(starter, cluster, "approve", run_id, "--expires-in", "soon")
    assert_one_line_error(bad_duration, "not a duration")

    assert cluster.client is not None
    handle = cluster.client.get_workflow_handle(run_id, result_type=RunResult)
    still = await handle.query(AgentRunWorkflow.progress, 1_000_000)
    assert still.state == RunState.AWAITING_APPROVAL and still.pending_approval is not None
    assert still.pending_approval.arguments_sha256 == digest

    approved = await asyncio.to_thread(starter, cluster, "approve", run_id, "--sha256", digest, "--approver", "lead")
    assert approved.returncode == 0, approved.stderr
    result = await run_result(handle)
    assert result.outcome == RunState.COMPLETED
    assert [a.approver for a in result.approvals] == ["lead"]

    finished = await asyncio.to_thread(starter, cluster, "approve", run_id)
    assert_one_line_error(finished, "has finished (COMPLETED)", "nothing left to approve")
    unknown = await asyncio.to_thread(starter, cluster, "deny", "no-such-run", "--reason", "x")
    assert_one_line_error(unknown, "no-such-run")


async def test_a_waiting_run_prints_the_commands_that_answer_it(cluster: LabCluster) -> None:
    """`starter run` on a task that needs approval shows the proposal, the reason and the exact
    commands; the printed approve command, run as printed, lets the run finish."""
    run = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "starter", "run", "--task", "refund-needs-approval", "--no-worker",
        cwd=PROJECT_ROOT, env=cluster.env(), stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert run.stdout is not None
    seen: list[str] = []
    try:
        async with asyncio.timeout(60):
            while not seen or not seen[-1].lstrip().startswith("deny:"):
                seen.append((await run.stdout.readline()).decode())
        text = "".join(seen)
        assert "[AWAITING_APPROVAL] step 2 (refund-return): issue_refund(order_id='o-2001'" in text, text
        assert "why: approval_rule: a refund of 15000 cents is above the 10000 cents" in text, text
        approve = next(line for line in seen if line.lstrip().startswith("approve:")).split("approve:", 1)[1]
        argv = shlex.split(approve)
        assert argv[:5] == ["uv", "run", "python", "-m", "starter"] and "--sha256" in argv, approve
        approved = await asyncio.to_thread(starter, cluster, *argv[5:])
        assert approved.returncode == 0, approved.stderr
        output, _ = await asyncio.wait_for(run.communicate(), 60)
        assert run.returncode == 0, text + output.decode()
        assert "ok: COMPLETED" in output.decode()
    finally:
        if run.returncode is None:
            run.kill()
            await run.wait()


async def test_approving_a_finished_run_needs_no_worker(tmp_path_factory: pytest.TempPathFactory) -> None:
    """The server describes a closed run; no worker has to answer a query for it."""
    async with LabCluster(tmp_path_factory.mktemp("no-worker")) as idle:
        worker = await idle.start_worker()
        assert idle.client is not None
        request = build_request(load_task("bugfix-median"), "durable")
        handle = await idle.client.start_workflow(
            AgentRunWorkflow.run, request, id=request.run_id, task_queue=TASK_QUEUE
        )
        assert (await run_result(handle)).outcome == RunState.COMPLETED
        await worker.stop()
        for command in (["approve", request.run_id], ["deny", request.run_id, "--reason", "late"]):
            said = await asyncio.to_thread(starter, idle, *command)
            assert_one_line_error(said, f"run {request.run_id!r} has finished (COMPLETED)")


async def test_a_denial_goes_back_to_the_model(cluster: LabCluster) -> None:
    run_id = await waiting_run(cluster)
    denied = await asyncio.to_thread(starter, cluster, "deny", run_id, "--reason", "needs finance sign-off first")
    assert denied.returncode == 0, denied.stderr
    assert cluster.client is not None
    result = await run_result(cluster.client.get_workflow_handle(run_id, result_type=RunResult))
    # The scripted model has nothing else to propose after a denial and gives up.
    rejected = [s for s in result.steps if s.outcome == "rejected"]
    assert any("denied by" in s.reason and "needs finance sign-off first" in s.reason for s in rejected)
    assert [(a.approved, a.reason) for a in result.approvals] == [(False, "needs finance sign-off first")]

    trace = await asyncio.to_thread(starter, cluster, "replay", run_id)
    assert trace.returncode == 0
    assert "approval_requested" in trace.stdout and "approval_decided" in trace.stdout
    assert trace.stdout.rstrip().splitlines()[-1].startswith(f"ledger of {run_id}: ")
    assert "hash chain intact" in trace.stdout.rstrip().splitlines()[-1]


async def test_a_ledger_edited_by_hand_is_reported_and_left_alone(cluster: LabCluster) -> None:
    run_id = await waiting_run(cluster)
    assert cluster.client is not None
    await asyncio.to_thread(starter, cluster, "deny", run_id, "--reason", "no")
    await run_result(cluster.client.get_workflow_handle(run_id, result_type=RunResult))

    good = await asyncio.to_thread(starter, cluster, "ledger", "verify", run_id)
    assert good.returncode == 0 and good.stdout.startswith(f"ledger of {run_id}: ")
    assert "hash chain intact" in good.stdout
    path = lab_deps().ledgers.path(run_id)
    lines = path.read_text().splitlines(keepends=True)
    edited = json.loads(lines[1])
    edited["payload"]["note"] = "changed by hand"
    lines[1] = json.dumps(edited) + "\n"
    path.write_text("".join(lines))
    before = path.read_bytes()

    bad = await asyncio.to_thread(starter, cluster, "ledger", "verify", run_id)
    assert bad.returncode == 1
    assert "line 2" in bad.stdout + bad.stderr
    assert path.read_bytes() == before
    missing = await asyncio.to_thread(starter, cluster, "ledger", "verify", "never-ran")
    assert_one_line_error(missing, "never-ran")
