"""`python worker.py` stopped by SIGTERM mid-activity: within its grace period the activity
finishes on that worker (one attempt, that worker's identity, nothing retried elsewhere) and
the worker exits 0 saying so; past it, the activity is cancelled and handed back, and the line
says that instead."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from contracts import RunRequest
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from tests.worker_process import start_worker_process

SUMMARY = re.compile(r"(\d+) of (\d+) running activities finished within the (\S+) s grace period, (\d+) cancelled")


def slow_task(directory: Path, seconds: int) -> RunRequest:
    """A one-step task whose only command takes `seconds`: an execute_tool activity that long."""
    (directory / "repo").mkdir(parents=True)
    (directory / "repo" / "README").write_text("slow\n")
    (directory / "task.yaml").write_text(
        "id: slow-step\ntitle: One slow command\ngoal: Run the slow command once.\n"
        "fixture: repo\nscript: script.yaml\nbudget: {max_steps: 3, max_steps_per_subtask: 3}\n"
        "postconditions: [{kind: file_contains, path: done.txt, text: done}]\n"
    )
    (directory / "script.yaml").write_text(
        "goal: {summary: Run the slow command once.}\n"
        "plan:\n  - id: slow\n    title: Run it\n    instructions: Run it.\n"
        "    postconditions: [{kind: file_contains, path: done.txt, text: done}]\n"
        "    actions:\n      - thought: Run it.\n        tool: run_command\n"
        f'        arguments: {{command: "sleep {seconds} && echo done > done.txt"}}\n'
    )
    return build_request(load_task(str(directory)), "durable")


async def start_worker(address: str, grace_s: float) -> asyncio.subprocess.Process:
    process, _ = await start_worker_process(address, "--grace-seconds", str(grace_s))
    return process


async def wait_for_started_execution(handle: WorkflowHandle) -> None:
    async with asyncio.timeout(30):
        while True:
            pending = (await handle.describe()).raw_description.pending_activities
            if any(
                p.activity_type.name == "execute_and_check"
                and p.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                for p in pending
            ):
                return
            await asyncio.sleep(0.1)


async def stop(process: asyncio.subprocess.Process, timeout_s: float) -> tuple[int, float, str, str]:
    """SIGTERM, then wait: exit code, seconds it took, the last stdout line, stderr."""
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        stdout, stderr = await asyncio.wait_for(process.communicate(), timeout=timeout_s)
    except TimeoutError:
        process.kill()
        raise
    lines = stdout.decode().strip().splitlines()
    return process.returncode or 0, time.monotonic() - sent, lines[-1] if lines else "", stderr.decode()


@pytest.mark.timeout(90)
async def test_sigterm_lets_the_running_activity_finish_on_this_worker(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    grace_s = 20.0
    process = await start_worker(dev_env.client.service_client.config.target_host, grace_s)
    handle = await start_durable_run(dev_env.client, slow_task(tmp_path, seconds=3))
    try:
        await wait_for_started_execution(handle)
        code, took, line, stderr = await stop(process, timeout_s=grace_s + 10)
        assert code == 0, stderr[-2000:]
        assert took < grace_s, took
        said = SUMMARY.search(line)
        assert said, line
        finished, running, _, handed_back = (said.group(1), said.group(2), said.group(3), said.group(4))
        assert int(finished) == int(running) >= 1 and handed_back == "0", line

        events = [event async for event in handle.fetch_history_events()]
        scheduled = {
            event.event_id
            for event in events
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            and event.activity_task_scheduled_event_attributes.activity_type.name == "execute_and_check"
        }
        started = [
            event.activity_task_started_event_attributes
            for event in events
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
            and event.activity_task_started_event_attributes.scheduled_event_id in scheduled
        ]
        completed = [
            event
            for event in events
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
            and event.activity_task_completed_event_attributes.scheduled_event_id in scheduled
        ]
        assert len(scheduled) == len(started) == len(completed) == 1
        # One attempt, by the worker that was told to stop: not retried elsewhere.
        assert started[0].attempt == 1
        assert started[0].identity.startswith(f"{process.pid}@"), started[0].identity
        assert completed[0].activity_task_completed_event_attributes.identity == started[0].identity
    finally:
        if process.returncode is None:
            process.kill()
        await handle.terminate("test over")


@pytest.mark.timeout(90)
async def test_an_activity_longer_than_the_grace_period_is_handed_back(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    grace_s = 1.0
    process = await start_worker(dev_env.client.service_client.config.target_host, grace_s)
    handle = await start_durable_run(dev_env.client, slow_task(tmp_path, seconds=30))
    try:
        await wait_for_started_execution(handle)
        code, took, line, stderr = await stop(process, timeout_s=grace_s + 15)
        assert code == 0, stderr[-2000:]
        assert took < grace_s + 5, took
        said = SUMMARY.search(line)
        assert said, line
        assert said.group(1) == "0" and int(said.group(4)) == int(said.group(2)) >= 1, line
        # The server has it back, as a failed attempt to retry (no worker polls now), not as
        # one waiting for its heartbeat timeout.
        async with asyncio.timeout(10):
            while True:
                pending = (await handle.describe()).raw_description.pending_activities
                execution = next(p for p in pending if p.activity_type.name == "execute_and_check")
                if execution.attempt == 2:
                    break
                await asyncio.sleep(0.1)
        assert execution.state != PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
        assert "shutdown" in execution.last_failure.message.lower() or "shutting down" in str(execution.last_failure)
    finally:
        if process.returncode is None:
            process.kill()
        await handle.terminate("test over")
