"""`python worker.py` in a process of its own, against a given Temporal server, as the README
runs it: for the tests of what the standalone worker does (graceful stop, metrics, versions)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from settings import PROJECT_ROOT


async def start_worker_process(
    address: str, *options: str, checkout: Path = PROJECT_ROOT, env: dict[str, str] | None = None
) -> tuple[asyncio.subprocess.Process, str]:
    """The worker, once it says it polls, and that line. Logs at WARNING, so its output stays
    short. `checkout`: the copy of the project it runs from; `env`: variables set for it."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("TEMPORAL_")} | (env or {})
    env["TEMPORAL_ADDRESS"] = address
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "worker.py",
        *options,
        "--log-level",
        "warning",
        cwd=checkout,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert process.stdout is not None
    ready = (await asyncio.wait_for(process.stdout.readline(), timeout=60)).decode()
    assert "worker polling" in ready, ready
    return process, ready
