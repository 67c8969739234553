"""The worker: what it registers and how it polls (`build_worker`), and which build of the code
it is (`build_id`), the version a Worker Deployment pins runs to (`host.deployment`)."""

from __future__ import annotations

import functools
import hashlib
import sys
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client
from temporalio.worker import Worker

import settings
from activities.registered import all_activities
from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment
from contracts import TASK_QUEUE
from host.workflow_runner import runner_for
from workflows import AgentRunWorkflow


def build_worker(
    client: Client, task_queue: str = TASK_QUEUE, *, dependencies: Dependencies | None = None, **overrides: object
) -> Worker:
    """`dependencies`: what its activities use (None: this process's, from its environment)."""
    deps = dependencies if dependencies is not None else from_environment()
    options: dict[str, object] = {
        "task_queue": task_queue,
        "workflows": [AgentRunWorkflow],
        "activities": all_activities(deps),
        # The sandbox, without re-entering it for every payload's context (host/workflow_runner.py).
        "workflow_runner": runner_for(client.data_converter),
        # A worker that dies holds its runs' next workflow task on its sticky queue until
        # this expires (10 s by default); a short one lets another worker take over sooner.
        # A live worker always has a poll waiting on its sticky queue, so it takes the task at
        # once; one too busy to costs a replay elsewhere. Measured: 1 s made the workflow go on
        # 3.1 s after a kill (the retried activity at 2.1 s, then this), over the 3 s target.
        "sticky_queue_schedule_to_start_timeout": timedelta(milliseconds=500),
        # Heartbeats reach the server at most this far apart (by default 80% of the heartbeat
        # timeout, 1.6 s of 2: too little slack for a worker on a loaded machine). Once a
        # second costs the dev server 1-3% of a core, as once in four seconds does.
        "max_heartbeat_throttle_interval": timedelta(seconds=1),
        "build_id": build_id(),
    }
    options.update(overrides)
    if "deployment_config" in options:
        del options["build_id"]  # a deployment names its own build
    return Worker(client, **options)  # type: ignore[arg-type]


# What a worker runs: its entry point and settings, these packages (every file in them, so a
# module added to one changes the build), and the dependencies uv.lock pins. The starter, the
# lab and the experiments are not in it: a change there does not need a new worker version.
WORKER_PACKAGES = ("host", "workflows", "activities", "agent", "contracts")
_ROOT_FILES = ("worker.py", "settings.py", "uv.lock")


def build_sources(root: Path) -> list[Path]:
    """The files a worker's build id hashes, in a fixed order."""
    files = [root / name for name in _ROOT_FILES]
    return files + [path for package in WORKER_PACKAGES for path in sorted((root / package).rglob("*.py"))]


@functools.cache
def build_id() -> str:
    """This checkout's build of the worker: a hash of the code it runs and the locked
    dependencies. The SDK's default hashes every loaded module's code, and where no bytecode is
    cached (a fresh clone, PYTHONDONTWRITEBYTECODE) it compiles each module again to do so:
    1.3-2.3 s of every worker's start on 2 cores, and the soak starts hundreds."""
    digest = hashlib.sha256(sys.version.encode())
    root = settings.PROJECT_ROOT
    for path in build_sources(root):
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes())
    return f"agent-lab-{digest.hexdigest()[:16]}"
