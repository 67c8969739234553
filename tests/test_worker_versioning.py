"""An upgrade with Worker Deployment Versioning: a run started on version 1 finishes on version
1's worker while version 2, made current, takes every new run. On a dev server of its own: a
task queue that has been versioned routes new runs to its current version, which other tests'
unversioned workers would never see."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType, VersioningBehavior
from temporalio.client import WorkflowHandle

from host.client import connect
from lab.processes.temporal_server import DevServer, DevServerOptions
from lab.runs.durable_start import start_durable_run
from tests.conftest import free_port
from tests.test_graceful_worker import slow_task, wait_for_started_execution
from tests.worker_process import start_worker_process

DEPLOYMENT = "agent-lab-test"


async def start_version(address: str, build: str) -> asyncio.subprocess.Process:
    """`python worker.py` of one build, once its version is the deployment's current one."""
    process, ready = await start_worker_process(
        address, "--deployment", DEPLOYMENT, "--build-id", build, "--make-current"
    )
    assert process.stdout is not None
    said = [ready]
    async with asyncio.timeout(60):
        while not said or "is now current" not in said[-1]:
            line = (await process.stdout.readline()).decode()
            assert line, f"the worker of {build} ended: {said}"
            said.append(line)
    assert f"deployment {DEPLOYMENT!r}, build {build!r}" in said[0], said
    return process


async def identities(handle: WorkflowHandle) -> set[str]:
    """Every worker that ran one of the run's workflow or activity tasks."""
    found = set()
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
            found.add(event.workflow_task_completed_event_attributes.identity)
        elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            found.add(event.activity_task_started_event_attributes.identity)
    return found


@pytest.mark.timeout(180)
async def test_a_run_finishes_on_its_version_while_new_runs_start_on_the_next(tmp_path: Path) -> None:
    server = DevServer(DevServerOptions(port=free_port(), ui_port=None, database=tmp_path / "server.sqlite"))
    await server.start()
    workers: list[asyncio.subprocess.Process] = []
    try:
        client = await connect(server.address)
        workers.append(await start_version(server.address, "v1"))
        old = await start_durable_run(client, slow_task(tmp_path / "old", seconds=4))
        await wait_for_started_execution(old)  # version 1 is running it
        workers.append(await start_version(server.address, "v2"))
        new = await start_durable_run(client, slow_task(tmp_path / "new", seconds=1))
        old_result, new_result = await asyncio.wait_for(asyncio.gather(old.result(), new.result()), timeout=90)

        assert old_result.outcome == new_result.outcome == "COMPLETED", (old_result.reason, new_result.reason)
        v1, v2 = (f"{process.pid}@" for process in workers)
        # Every task of the old run, its end included, on version 1; of the new run, on version 2.
        assert {identity.split("@")[0] + "@" for identity in await identities(old)} == {v1}
        assert {identity.split("@")[0] + "@" for identity in await identities(new)} == {v2}
        for handle, build in ((old, "v1"), (new, "v2")):
            versioning = (await handle.describe()).raw_description.workflow_execution_info.versioning_info
            assert versioning.deployment_version.build_id == build
            assert versioning.deployment_version.deployment_name == DEPLOYMENT
            assert versioning.behavior == VersioningBehavior.VERSIONING_BEHAVIOR_PINNED
    finally:
        for process in workers:
            process.kill()
            await process.wait()
        await server.stop()
