"""docker-compose.yml's topology with native processes, from the same settings: a Temporal
server, the operations service, two workers given the environment compose gives them (values
from .env.example, service names made loopback addresses), and an operations task and a coding
task submitted at once with `starter run --no-worker`. Both complete, both workers poll the
queue, and the work is theirs.

The workers get compose's metrics setting, a port range: the two take a port each and serve it.

With the `local` extra, the same again with compose's `model` service: the llama.cpp server
started with the command compose gives it (SmolLM2's weights in place of the image's), and a
third run, proposed by that server through `--provider local --base-url`, beside the others."""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from host.client import connect
from lab.models.local_model import resolve_model
from lab.processes.child_process import die_with_parent
from lab.processes.temporal_server import DevServer, DevServerOptions
from settings import PROJECT_ROOT
from tests.conftest import free_port
from tests.test_deployment_files import SUBSTITUTION, env_example, environment, services
from tests.test_worker_metrics import scraped

# Where compose's names point when everything runs on this machine.
WEB_UI_LINK = re.compile(r"/workflows/([^/]+)/([^/]+)/history")


def substituted(value: str) -> str:
    """A compose value with its ${NAME...} replaced as compose would, from .env.example."""
    example = env_example()
    return SUBSTITUTION.sub(lambda m: example.get(m["name"]) or m["arg"], value)


def worker_environment(server: str, ops_url: str, data: Path) -> dict[str, str]:
    """The worker service's environment in compose, substituted from .env.example, with its
    addresses and volume made this machine's."""
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
        # A session of their own (so a signal to the test's group spares them until the test
        # stops them), yet they die with the test's process: a test stopped by its timeout, or
        # a killed run, skips the clean-up below and would leave them polling.
        preexec_fn=die_with_parent,
    )


def model_command(model: Path, port: int) -> list[str]:
    """compose's `model` service command, its variables substituted from .env.example, with
    this machine's weights and a loopback address and free port."""
    example = env_example()
    command = [
        SUBSTITUTION.sub(lambda m: example.get(m["name"]) or m["arg"], part) for part in services()["model"]["command"]
    ]
    assert command[0] == "python" and command[command.index("--model") + 1] == "/opt/model.gguf"
    command[command.index("--model") + 1] = str(model)
    command[command.index("--host") + 1] = "127.0.0.1"
    command[command.index("--port") + 1] = str(port)
    return command[1:]


@dataclass
class Topology:
    env: dict[str, str]
    server: str
    workers: list[subprocess.Popen[str]]
    metrics_ports: list[int]


@contextlib.asynccontextmanager
async def compose_topology(tmp_path: Path) -> AsyncIterator[Topology]:
    """A server, the operations service and two workers, as compose runs them."""
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
        ports = []
        for _ in range(2):
            workers.append(start("worker.py", env=env))
            assert workers[-1].stdout is not None
            ready = workers[-1].stdout.readline()
            assert "worker polling" in ready, ready + (workers[-1].stderr.read() if workers[-1].stderr else "")
            serving = re.search(r"metrics at http://0\.0\.0\.0:(\d+)/metrics", ready)
            assert serving, ready
            ports.append(int(serving[1]))
        yield Topology(env, server.address, workers, ports)
    finally:
        for process in (*workers, ops):
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
            process.communicate(timeout=40)  # and its pipes closed
        await server.stop()


async def submit(env: dict[str, str], task: str, *flags: str, succeed: bool = True) -> str:
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "starter", "run", "--task", task, "--no-worker", *flags],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if succeed:
        assert done.returncode == 0 and "ok: COMPLETED" in done.stdout, done.stdout + done.stderr
    return done.stdout + done.stderr


def worker_pid(identity: str) -> str:
    """The pid in a worker's identity, which the SDK makes `pid@host`."""
    return identity.split("@")[0]


def completed_steps(output: str) -> int:
    """The steps of a run that `starter run` said completed."""
    found = re.search(r"ok: COMPLETED in \S+ s, (\d+) steps", output)
    assert found, output
    return int(found[1])


async def activity_workers(client: Client, output: str) -> dict[str, set[str]]:
    """For the run whose Web UI link `output` printed: each activity type, and the worker pids
    that started it."""
    link = WEB_UI_LINK.search(output)
    assert link, output
    scheduled: dict[int, str] = {}
    took: dict[str, set[str]] = {}
    async for event in client.get_workflow_handle(link[1], run_id=link[2]).fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            scheduled[event.event_id] = event.activity_task_scheduled_event_attributes.activity_type.name
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            started = event.activity_task_started_event_attributes
            took.setdefault(scheduled[started.scheduled_event_id], set()).add(worker_pid(started.identity))
    return took


@pytest.mark.timeout(240)
async def test_compose_topology_runs_an_operations_and_a_coding_task_on_two_workers(tmp_path: Path) -> None:
    async with compose_topology(tmp_path) as topology:
        said = await asyncio.gather(
            submit(topology.env, "refund-duplicate-charge"), submit(topology.env, "bugfix-median")
        )
        client = await connect(topology.server)
        ours = {str(worker.pid) for worker in topology.workers}
        took_part = set()
        for output in said:
            took_part |= {pid for pids in (await activity_workers(client, output)).values() for pid in pids}
        assert took_part and took_part <= ours, took_part
        # Compose's metrics setting, a range: each worker took a port of its own and serves there.
        assert len(set(topology.metrics_ports)) == 2
        async with httpx.AsyncClient() as http:
            served = [
                (await http.get(f"http://127.0.0.1:{port}/metrics", timeout=10)).text for port in topology.metrics_ports
            ]
        # Each worker polled the queue for workflow and activity tasks, by its own count (the
        # server's DescribeTaskQueue was tried: it once named only one of the two pollers).
        # Which one works is the server's choice, often lopsided (seen: one worker ran 18 of 19
        # activities and all six proposals), so neither is asked for a share.
        for poll in ("PollWorkflowTaskQueue", "PollActivityTaskQueue"):
            assert all(scraped(text, "temporal_long_request", operation=poll) > 0 for text in served), served
        # Together they counted every step's proposal.
        steps = sum(completed_steps(output) for output in said)
        assert sum(scraped(text, "agent_lab_proposals") for text in served) >= steps > 0, served


@pytest.mark.extra("local")
@pytest.mark.timeout(600)
async def test_compose_topology_with_its_model_service(tmp_path: Path) -> None:
    port = free_port()
    log_path = tmp_path / "model.log"
    with log_path.open("w") as log:
        model = subprocess.Popen(
            [sys.executable, *model_command(resolve_model("smollm2").path, port)],
            cwd=PROJECT_ROOT,
            stdout=log,
            stderr=log,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
    try:
        base_url = f"http://127.0.0.1:{port}/v1"
        async with httpx.AsyncClient() as http:
            for _ in range(240):
                with contextlib.suppress(httpx.HTTPError):
                    if (await http.get(f"{base_url}/models", timeout=2)).status_code == 200:
                        break
                assert model.poll() is None, log_path.read_text()[-2000:]
                await asyncio.sleep(0.5)
            else:
                pytest.fail("the model service never answered: " + log_path.read_text()[-2000:])
        async with compose_topology(tmp_path) as topology:
            local = ("--provider", "local", "--base-url", base_url, "--max-steps", "2")
            said = await asyncio.gather(
                submit(topology.env, "refund-duplicate-charge"),
                submit(topology.env, "bugfix-median"),
                submit(topology.env, "small-off-by-one", *local, succeed=False),
            )
            assert f"local model served at {base_url}" in said[2], said[2]
            # The model's run ran its course (a 135M model rarely finishes in two steps: the
            # outcome is not the point), its proposals made by the workers through the server.
            assert re.search(r"^(ok|FAILED): \w+ in ", said[2], re.MULTILINE), said[2]
            took = await activity_workers(await connect(topology.server), said[2])
            proposing = {name for name in took if "propose" in name}
            assert proposing and set().union(*(took[name] for name in proposing)) <= {
                str(worker.pid) for worker in topology.workers
            }
            completions = log_path.read_text().count("POST /v1/chat/completions")
            assert completions >= 2, log_path.read_text()[-2000:]
    finally:
        model.terminate()
        model.wait(timeout=30)
