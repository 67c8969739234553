"""The operations tasks end to end: both runtimes against the real operations service, judged
by each task's postconditions on the run's tenant; seeding a world; the starter's service."""

from __future__ import annotations

import asyncio
import io
import os
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.client import Client, WorkflowHandle
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.workspace import WorkspaceActivities
from agent.dependencies import Dependencies
from agent.ops_world import SEED_FILE
from agent.postconditions import check
from agent.workspace import workspace_path
from baseline import BaselineLoop
from baseline.approval import approve_everything
from contracts import (
    Approve,
    PolicyProfile,
    PostconditionResult,
    PrepareWorkspaceInput,
    RunRequest,
    RunResult,
    RunSnapshot,
    RunState,
)
from host.build import build_worker
from lab.runs.catalog import Task, load_task
from lab.runs.run_request import build_request
from ops_service import OpsServiceProcess
from settings import project_path
from starter.ops_service import ops_service_for, service_db_path
from starter.render import Printer
from tests.conftest import free_port
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

OPS_TASKS = ["refund-duplicate-charge", "refund-needs-approval", "offboard-employee"]


@pytest.fixture
def ops_url(service: OpsServiceProcess, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    return service.url


async def tenant_state(url: str, world_id: str) -> dict[str, Any]:
    async with httpx.AsyncClient(base_url=url, headers={"X-Tenant": world_id}, timeout=5) as client:
        response = await client.get("/state")
    assert response.status_code == 200, response.text
    return response.json()


async def judge(
    task: Task, request: RunRequest, result: RunResult, deps: Dependencies | None = None
) -> PostconditionResult:
    """Judged apart from what the runtime says: the task's postconditions on the run's world."""
    deps = deps or lab_deps()
    return await check(deps, Path(result.workspace), task.spec.postconditions, request.world_id)


async def run(runtime: str, client: Client, task_queue: str, request: RunRequest) -> RunResult:
    if runtime == "baseline":
        # As the durable run's person does, one who approves what it is asked (the baseline without
        # one: tests/test_unapproved_effects.py).
        return await BaselineLoop(lab_deps(), approver=approve_everything).run(request)
    async with build_worker(client, task_queue):
        return await execute_run(client, request, task_queue)


# --- the tasks -----------------------------------------------------------------------------


@pytest.mark.parametrize("task_id", OPS_TASKS)
def test_ops_tasks_are_operator_tasks_whose_fixture_seeds_a_world(task_id: str) -> None:
    task = load_task(task_id)
    assert task.spec.profile == PolicyProfile.OPERATOR
    assert "ops" in task.spec.tags
    assert (task.fixture_dir / SEED_FILE).is_file()
    assert (task.fixture_dir / "README.md").is_file()


@pytest.mark.parametrize("task_id", OPS_TASKS)
async def test_a_freshly_seeded_world_fails_the_task(ops_url: str, task_id: str) -> None:
    """The postconditions are not met before the agent acts: passing them means work was done."""
    task = load_task(task_id)
    world_id = f"pristine-{uuid.uuid4().hex[:12]}"
    ref = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace,
        PrepareWorkspaceInput(world_id=world_id, fixture_dir=str(task.fixture_dir)),
    )
    judged = await check(lab_deps(), Path(ref.path), task.spec.postconditions, world_id)
    assert not judged.passed
    assert (await tenant_state(ops_url, world_id))["seeded"]


@pytest.mark.parametrize("runtime", ["durable", "baseline"])
async def test_refund_duplicate_charge(ops_url: str, client: Client, task_queue: str, runtime: str) -> None:
    task = load_task("refund-duplicate-charge")
    request = build_request(task, runtime)  # type: ignore[arg-type]

    result = await run(runtime, client, task_queue, request)

    assert result.outcome == RunState.COMPLETED, result.reason
    judged = await judge(task, request, result)
    assert judged.passed, judged.failures()
    state = await tenant_state(ops_url, request.world_id)
    assert [(r["order_id"], r["amount_cents"]) for r in state["refunds"]] == [("o-1001", 4200)]
    assert [t["title"] for t in state["tickets"] if t["status"] == "open"] == ["Duplicate charge refunded: o-1001"]
    assert not (Path(result.workspace) / SEED_FILE).exists()


@pytest.mark.parametrize("runtime", ["durable", "baseline"])
async def test_offboard_employee(ops_url: str, client: Client, task_queue: str, runtime: str) -> None:
    task = load_task("offboard-employee")
    request = build_request(task, runtime)  # type: ignore[arg-type]

    if runtime == "durable":
        result = await run_approving_the_disable(client, task_queue, request)
    else:
        result = await run(runtime, client, task_queue, request)

    assert result.outcome == RunState.COMPLETED, result.reason
    judged = await judge(task, request, result)
    assert judged.passed, judged.failures()
    state = await tenant_state(ops_url, request.world_id)
    statuses = {account["user"]: account["status"] for account in state["accounts"]}
    assert statuses == {
        "alice": "active",
        "bob": "active",
        "carol": "active",
        "dana": "disabled",
        "erin": "disabled",
    }
    assert sorted(t["title"] for t in state["tickets"]) == ["Revoke GitHub access: dana", "Revoke VPN access: dana"]
    assert state["refunds"] == []


async def run_approving_the_disable(client: Client, task_queue: str, request: RunRequest) -> RunResult:
    """Every account disabled needs a person's approval (agent.tools.ops.account_approval): the
    test is that person, for dana's account."""
    async with build_worker(client, task_queue):
        handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
        pending = (await awaiting_approval(handle)).pending_approval
        assert pending is not None and pending.proposal.tool == "disable_account"
        assert pending.proposal.arguments["user"] == "dana"
        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="test", arguments_sha256=pending.arguments_sha256)
        )
        return await run_result(handle)


async def awaiting_approval(handle: WorkflowHandle[Any, Any]) -> RunSnapshot:
    for _ in range(500):
        progress = await handle.query(AgentRunWorkflow.progress, 0)
        if progress.state == RunState.AWAITING_APPROVAL or progress.state.terminal:
            return progress
        await asyncio.sleep(0.02)
    raise AssertionError(f"the run never waited for approval: it is {progress.state}")


async def test_refund_needs_approval_waits_for_a_person_then_refunds_once(
    ops_url: str, client: Client, task_queue: str
) -> None:
    task = load_task("refund-needs-approval")
    request = build_request(task, "durable")
    async with build_worker(client, task_queue):
        handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
        progress = await awaiting_approval(handle)
        assert progress.state == RunState.AWAITING_APPROVAL
        pending = progress.pending_approval
        assert pending is not None
        assert pending.subtask_id == "refund-return"
        assert pending.proposal.tool == "issue_refund"
        assert pending.proposal.arguments["order_id"] == "o-2001"
        assert pending.proposal.arguments["amount_cents"] == 15_000
        # Nothing was paid while it waits.
        assert (await tenant_state(ops_url, request.world_id))["refunds"] == []

        await handle.execute_update(
            AgentRunWorkflow.approve, Approve(approver="test", arguments_sha256=pending.arguments_sha256)
        )
        result = await run_result(handle)

    assert result.outcome == RunState.COMPLETED, result.reason
    assert [(a.approver, a.approved) for a in result.approvals] == [("test", True)]
    judged = await judge(task, request, result)
    assert judged.passed, judged.failures()
    refunds = (await tenant_state(ops_url, request.world_id))["refunds"]
    assert [(r["order_id"], r["amount_cents"]) for r in refunds] == [("o-2001", 15_000)]


# --- seeding a world -----------------------------------------------------------------------


def prepare_input(world_id: str | None = None, task_id: str = "refund-duplicate-charge") -> PrepareWorkspaceInput:
    world = world_id or f"seed-{uuid.uuid4().hex[:12]}"
    return PrepareWorkspaceInput(world_id=world, fixture_dir=str(load_task(task_id).fixture_dir))


async def test_seeding_never_copies_the_seed_into_the_workspace(ops_url: str) -> None:
    request = prepare_input()
    ref = await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
    workspace = Path(ref.path)
    assert (project_path(request.fixture_dir) / SEED_FILE).is_file()
    assert sorted(path.name for path in workspace.iterdir() if path.name != ".git") == ["README.md"]
    state = await tenant_state(ops_url, request.world_id)
    assert [order["order_id"] for order in state["orders"]] == ["o-0998", "o-1001", "o-1002"]


async def test_a_rerun_of_the_same_world_does_not_seed_twice(ops_url: str) -> None:
    request = prepare_input()
    first = await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
    # The first run acts on its world...
    headers = {"X-Tenant": request.world_id, "Idempotency-Key": "k-1"}
    async with httpx.AsyncClient(base_url=ops_url, headers=headers, timeout=5) as http:
        refund = {"order_id": "o-1001", "amount_cents": 4200, "reason": "duplicate"}
        assert (await http.post("/refunds", json=refund)).status_code == 201
    before = await tenant_state(ops_url, request.world_id)

    again = await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)

    assert again.path == first.path
    after = await tenant_state(ops_url, request.world_id)
    # ...and a rerun finds it as that run left it: no second copy of the seed, no reset.
    assert after == before
    assert len(after["orders"]) == 3 and len(after["tickets"]) == 1 and len(after["refunds"]) == 1


async def test_a_seeded_task_without_a_service_is_a_non_retryable_workspace_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("AGENT_LAB_OPS_URL", raising=False)
    request = prepare_input()
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
    assert raised.value.type == "WorkspaceError"
    assert raised.value.non_retryable
    assert raised.value.message == "this task needs the operations service: set AGENT_LAB_OPS_URL"
    assert not workspace_path(lab_deps(), request.world_id).exists()


async def test_an_unreachable_service_is_retryable_and_a_retry_seeds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    later = OpsServiceProcess(tmp_path / "ops.sqlite", port=free_port())
    monkeypatch.setenv("AGENT_LAB_OPS_URL", f"http://127.0.0.1:{later.port}")
    request = prepare_input()
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
    assert raised.value.type == "ToolUnavailable"
    assert not raised.value.non_retryable
    assert "unreachable" in raised.value.message

    async with later:
        await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
        assert (await tenant_state(later.url, request.world_id))["seeded"]


async def test_a_task_without_a_seed_needs_no_service(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_LAB_OPS_URL", raising=False)
    ref = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace, prepare_input(task_id="bugfix-median")
    )
    assert Path(ref.path).is_dir()


# --- the starter brings a service ----------------------------------------------------------


async def test_the_starter_starts_a_service_for_a_run_that_needs_one(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_LAB_OPS_URL", raising=False)
    task = load_task("refund-duplicate-charge")
    request = build_request(task, "baseline")
    out = io.StringIO()

    async with ops_service_for(task, Printer(out)) as url:
        # Handed to the run, never written to this process's environment.
        assert url is not None and "AGENT_LAB_OPS_URL" not in os.environ
        deps = lab_deps(ops_url=url)
        result = await BaselineLoop(deps).run(request)
        judged = await judge(task, request, result, deps)

    assert judged.passed, judged.failures()
    assert "AGENT_LAB_OPS_URL" not in os.environ
    assert out.getvalue() == (
        f"  operations service: {url} (database {service_db_path()}; each run's tenant is its world id)\n"
    )
    with pytest.raises(httpx.ConnectError):
        await tenant_state(url, request.world_id)
    # The run's world outlives the service: the same file serves it again.
    assert service_db_path() == data_dir.resolve() / "ops" / "service.sqlite"
    async with OpsServiceProcess(service_db_path()) as again:
        assert len((await tenant_state(again.url, request.world_id))["refunds"]) == 1


async def test_the_starter_uses_a_configured_service(ops_url: str) -> None:
    out = io.StringIO()
    async with ops_service_for(load_task("offboard-employee"), Printer(out)) as url:
        assert url == ops_url
    assert os.environ["AGENT_LAB_OPS_URL"] == ops_url
    assert out.getvalue() == ""


async def test_the_starter_starts_nothing_for_a_task_without_a_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_LAB_OPS_URL", raising=False)
    async with ops_service_for(load_task("bugfix-median"), Printer(io.StringIO())) as url:
        assert url is None
        assert "AGENT_LAB_OPS_URL" not in os.environ
