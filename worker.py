"""A standalone worker: `python worker.py` polls the lab's task queue at TEMPORAL_ADDRESS.

Run several, kill some: Temporal hands their work to the ones still alive.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sys
from datetime import timedelta

from temporalio.client import Client
from temporalio.worker import Worker

import settings
from activities.registered import ALL_ACTIVITIES
from contracts import TASK_QUEUE
from data_converter import DATA_CONVERTER
from workflows import AgentRunWorkflow


def build_worker(client: Client, task_queue: str = TASK_QUEUE, **overrides: object) -> Worker:
    options: dict[str, object] = {
        "task_queue": task_queue,
        "workflows": [AgentRunWorkflow],
        "activities": ALL_ACTIVITIES,
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
    }
    options.update(overrides)
    return Worker(client, **options)  # type: ignore[arg-type]


async def connect(address: str | None = None) -> Client:
    return await Client.connect(
        address or settings.temporal_address(),
        namespace=settings.temporal_namespace(),
        data_converter=DATA_CONVERTER,
    )


async def main() -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    address = settings.temporal_address()
    try:
        client = await connect(address)
    except RuntimeError as error:
        print(
            f"error: no Temporal server answers at {address} ({connect_failure_reason(error)}): start one "
            "(`uv run python -m starter server`) or point TEMPORAL_ADDRESS at yours",
            file=sys.stderr,
        )
        return 2
    worker = build_worker(client)
    print(f"worker polling task queue {TASK_QUEUE!r} at {address}", flush=True)
    await worker.run()
    return 0


def connect_failure_reason(error: RuntimeError) -> str:
    """The transport's own reason ("Connection refused"), not its whole Rust error chain."""
    said = re.findall(r'(?:message|error): "([^"]+)"', str(error)) or re.findall(r'ConnectError\("([^"]+)"', str(error))
    return said[-1] if said else " ".join(str(error).split())[:160]


def _exit(code: int) -> None:
    """Leave without the interpreter's finalization: with the SDK's Rust runtime threads still
    about, it can abort after the work is done (`PyGILState_Release ... finalizing`, exit 134,
    sdk-python#300; seen here about once in 12 exits after a failed connect)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    try:
        _exit(asyncio.run(main()))
    except KeyboardInterrupt:
        _exit(130)
