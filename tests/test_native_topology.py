"""docker-compose.yml's topology with native processes, from the same settings: a Temporal
server, the operations service, two workers given the environment compose gives them (values
from .env.example, service names made loopback addresses), and an operations task and a coding
task submitted at once with `starter run --no-worker`. Both complete, and both workers work.

The model server of compose's `model` profile is left out: it needs the `local` extra, and the
scripted provider stands in for it (the model server itself is tested in tests/test_local_*)."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType

from lab.temporal_server import DevServer, DevServerOptions
from settings import PROJECT_ROOT
from tests.conftest import free_port
from tests.test_deployment_files import SUBSTITUTION, env_example, environment
from worker import connect

# Where compose's names point when everything runs on this machine.
WEB_UI_LINK = re.compile(r"/workflows/([^/]+)/([^/]+)/history")


def worker_environment(server: str, ops_url: str, data: Path) -> dict[str, str]:
    """The worker service's environment in compose, substituted from .env.example, with its
    addresses and volume made this machine's."""
    example = env_example()

    def substituted(value: str) -> str:
        return SUBSTITUTION.sub(lambda m: example.get(m["name"]) or m["arg"], value)

    given = {name: substituted(value) for name, value in environment("worker").items()}
    assert given["TEMPORAL_ADDRESS"] == "temporal:7233" and given["AGENT_LAB_DATA"] == "/data"
    given |= {"TEMPORAL_ADDRESS": server, "AGENT_LAB_OPS_URL": ops_url, "AGENT_LAB_DATA": str(data)}
    inherited = {key: value for key, value in os.environ.items() if not key.startswith(("TEMPORAL_", "AGENT_LAB_"))}
    return inherited | {name: value for name, value in given.items() if value}


def start(*command: str, env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, *command],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


@pytest.mark.timeout(240)
async def test_compose_topology_runs_an_operations_and_a_coding_task_on_two_workers(tmp_path: Path) -> None:
    server = DevServer(DevServerOptions(port=free_port(), ui_port=None, database=tmp_path / "server.sqlite"))
    await server.start()
    base = {key: value for key, value in os.environ.items() if not key.startswith("TEMPORAL_")}
    base["AGENT_LAB_DATA"] = str(tmp_path / "data")
    ops = start("-m", "starter", "ops-service", "--port", "0", "--db", str(tmp_path / "ops.sqlite"), env=base)
    workers: list[subprocess.Popen[str]] = []
    try:
        assert ops.stdout is not None
        first = ops.stdout.readline()
        assert first.startswith("operations service at http://127.0.0.1:"), first
        env = worker_environment(server.address, first.split()[3].rstrip(","), tmp_path / "data")
        assert env["AGENT_LAB_SANDBOX"] == "bubblewrap"  # as compose runs them: sandboxed or failing
        for _ in range(2):
            workers.append(start("worker.py", env=env))
            assert workers[-1].stdout is not None
            ready = workers[-1].stdout.readline()
            assert "worker polling" in ready, ready + (workers[-1].stderr.read() if workers[-1].stderr else "")

        async def submit(task: str) -> str:
            done = await asyncio.to_thread(
                subprocess.run,
                [sys.executable, "-m", "starter", "run", "--task", task, "--no-worker"],
                cwd=PROJECT_ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=180,
            )
            assert done.returncode == 0 and "ok: COMPLETED" in done.stdout, done.stdout + done.stderr
            return done.stdout

        said = await asyncio.gather(submit("refund-duplicate-charge"), submit("bugfix-median"))
        client = await connect(server.address)
        took_part = set()
        for output in said:
            link = WEB_UI_LINK.search(output)
            assert link, output
            async for event in client.get_workflow_handle(link[1], run_id=link[2]).fetch_history_events():
                if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
                    took_part.add(event.activity_task_started_event_attributes.identity.split("@")[0])
        assert took_part == {str(worker.pid) for worker in workers}, took_part
    finally:
        for process in (*workers, ops):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            process.communicate(timeout=40)  # and its pipes closed
        await server.stop()
