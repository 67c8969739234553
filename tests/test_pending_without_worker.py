"""`pending` reads what a run waits for from its memo, which the server returns with no worker
alive; a run that keeps no memo is still listed, with why it could not be read. The memo is
cleared once the approval is decided, and a run that kept it replays."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
import uuid

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from contracts import Approve, RunResult, RunState, proposal_digest
from contracts.approval import APPROVAL_MEMO, ApprovalMemo
from experiments.harness import LabCluster
from host.workflow_runner import runner_for
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from starter.waiting_runs import asked_for, list_pending
from tests.test_approval_cli import starter, waiting_run
from tests.test_approvals import BIG_REFUND, refunds_need_approval, start, waiting, worker
from tests.test_cli import assert_one_line_error
from tests.workflow_fakes import FakeWorld, sequence
from workflows import AgentRunWorkflow, approval_memo
from workflows.outcome import run_result

pytestmark = pytest.mark.timeout(240)


async def memo(client: Client, run_id: str) -> ApprovalMemo | None:
    described = await client.get_workflow_handle(run_id).describe()
    return await described.memo_value(APPROVAL_MEMO, None, type_hint=ApprovalMemo)


async def test_pending_lists_a_waiting_run_while_no_worker_is_alive(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    async with LabCluster(tmp_path_factory.mktemp("pending-no-worker")) as cluster:
        assert cluster.client is not None
        client = cluster.client
        worker = await cluster.start_worker()
        run_id = await waiting_run(cluster)
        asked = (await client.get_workflow_handle(run_id).query(AgentRunWorkflow.progress, 1_000_000)).pending_approval
        assert asked is not None
        kept = await memo(client, run_id)
        assert kept is not None and kept.pending is not None
        assert kept.pending.arguments_sha256 == asked.arguments_sha256 and kept.pending.step == asked.step
        await worker.stop()
        began = time.monotonic()
        only = await list_pending(client)
        print(f"list_pending with no worker alive, the run's memo read: {time.monotonic() - began:.2f} s")
        assert [(run.run_id, run.approval) for run in only] == [(run_id, kept.pending)]
        # A run no worker ever took, started as the lab starts runs: its memo says from the start
        # that it waits for nothing, so no query that nobody answers is waited for.
        not_taken = build_request(load_task("bugfix-median"), "durable")
        await start_durable_run(client, not_taken, task_queue=f"nobody-{uuid.uuid4()}")

        began = time.monotonic()
        listed = await asyncio.to_thread(starter, cluster, "pending")
        took = time.monotonic() - began
        print(f"`pending` with no worker alive (a subprocess, its imports included): {took:.2f} s")
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        waiting = next(line for line in lines if line.startswith(run_id))
        assert "step 2 (refund-return)  issue_refund(order_id='o-2001'" in waiting, listed.stdout
        assert f"arguments sha256: {asked.arguments_sha256}" in listed.stdout
        assert "why: approval_rule:" in listed.stdout
        assert not_taken.run_id not in listed.stdout and "could not be read" not in listed.stdout

        # A run that keeps no memo (started by an older build, here without it): no worker
        # answers its query, and it is listed all the same, with why it could not be read.
        never_started = build_request(load_task("bugfix-median"), "durable")
        await client.start_workflow(
            AgentRunWorkflow.run, never_started, id=never_started.run_id, task_queue=f"nobody-{uuid.uuid4()}"
        )
        listed = await asyncio.to_thread(starter, cluster, "pending")
        assert listed.returncode == 0, listed.stderr
        lines = listed.stdout.splitlines()
        assert any(line.startswith(run_id) for line in lines), listed.stdout
        unread = next(line for line in lines if line.startswith(never_started.run_id))
        assert "could not be read" in unread and "no worker answered its query" in unread, unread

        # Through the function too: the run with a memo read from it, the other one not skipped.
        found = {run.run_id: run for run in await list_pending(client)}
        assert found[run_id].approval is not None and found[run_id].approval.proposal.startswith("issue_refund(")
        assert found[never_started.run_id].approval is None and found[never_started.run_id].unreadable

        # A decision needs a worker: `approve` says so, naming what the run waits for.
        refused = await asyncio.to_thread(starter, cluster, "approve", run_id)
        assert_one_line_error(refused, "no worker answers for it", "waits for approval of step 2", "python worker.py")
        assert "approving step" not in refused.stdout

        await cluster.start_worker()
        approved = await asyncio.to_thread(starter, cluster, "approve", run_id, "--sha256", asked.arguments_sha256)
        assert approved.returncode == 0, approved.stderr
        handle = client.get_workflow_handle(run_id, result_type=RunResult)
        assert (await run_result(handle)).outcome == RunState.COMPLETED
        # Decided: the memo no longer names a proposal.
        assert await memo(client, run_id) == ApprovalMemo()
        await client.get_workflow_handle(never_started.run_id).terminate("test over")
        await client.get_workflow_handle(not_taken.run_id).terminate("test over")
        after = await asyncio.to_thread(starter, cluster, "pending")
        assert after.stdout.strip() == "no run is waiting for an approval", after.stdout

        # The memo's three changes (waits for nothing, waits, decided) are in the history, and
        # the run replays against this code.
        history = await handle.fetch_history()
        modified = [e for e in history.events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED]
        assert len(modified) == 3
        replayed = await _replay(history, client)
        assert replayed is None, replayed


async def _replay(history: WorkflowHistory, client: Client) -> BaseException | None:
    # With the cluster's converter: what the run holds by reference is in its artifact store.
    converter = client.data_converter
    replayer = Replayer(workflows=[AgentRunWorkflow], data_converter=converter, workflow_runner=runner_for(converter))
    return (await replayer.replay_workflow(history, raise_on_replay_failure=False)).replay_failure


def test_a_digest_that_is_not_one_is_refused_by_the_command_line() -> None:
    """Refused before any connection is made: argparse's one line, exit 2."""
    said = subprocess.run(
        [sys.executable, "-m", "starter", "approve", "some-run", "--sha256", "deadbeef"],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert_one_line_error(said, "--sha256", "not a sha256 digest", "'deadbeef'")


async def test_the_memo_names_the_proposal_while_the_run_waits_and_nothing_once_decided(
    client: Client, task_queue: str, worker_options: dict[str, object]
) -> None:
    world = FakeWorld(sequence(BIG_REFUND), verdict=refunds_need_approval)
    async with worker(client, task_queue, world, **worker_options):
        handle = await start(client, task_queue)
        pending = (await waiting(handle)).pending_approval
        assert pending is not None
        kept = await memo(client, handle.id)
        assert kept is not None and kept.pending is not None
        assert kept.pending.arguments_sha256 == proposal_digest(BIG_REFUND)
        assert kept.pending.proposal == BIG_REFUND.describe() and kept.pending.step == pending.step
        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=pending.arguments_sha256)
        )
        assert (await run_result(handle)).outcome == RunState.COMPLETED
    assert await memo(client, handle.id) == ApprovalMemo()


async def test_a_run_that_keeps_no_memo_is_asked_with_its_query(
    client: Client, task_queue: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run started before the patch: no memo, so `pending` asks it (a worker answers here)."""
    monkeypatch.setattr(approval_memo, "keeps_approval_memo", lambda: False)
    world = FakeWorld(sequence(BIG_REFUND), verdict=refunds_need_approval)
    # Unsandboxed: the sandbox would import workflows.approval_memo afresh, without the change.
    async with worker(client, task_queue, world, workflow_runner=UnsandboxedWorkflowRunner()):
        handle = await start(client, task_queue)
        await waiting(handle)
        assert await memo(client, handle.id) is None
        asked = await asked_for(client, handle.id)
        assert asked is not None and asked.approval is not None
        assert asked.approval.arguments_sha256 == proposal_digest(BIG_REFUND) and not asked.unreadable
        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="ada", arguments_sha256=asked.approval.arguments_sha256)
        )
        assert (await run_result(handle)).outcome == RunState.COMPLETED
    assert await memo(client, handle.id) is None
