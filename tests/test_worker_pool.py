"""The experiments' worker pool is a supervisor: a worker that dies is replaced, and a
replacement that cannot start yet (the server restarting) is tried again, not given up on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

import settings
from experiments.harness import pool, worker_process
from experiments.harness.cluster import LabCluster
from experiments.harness.pool import WorkerPool


class FakeWorker:
    def __init__(self) -> None:
        self.exited = asyncio.Event()

    async def wait_exit(self, timeout_s: float | None = None) -> int:
        await self.exited.wait()
        return -9


class FlakyCluster:
    """Starts workers, but the first `failures` replacements fail as a worker started while
    nothing answers does."""

    def __init__(self, failures: int) -> None:
        self.failures = failures
        self.started: list[FakeWorker] = []

    async def start_worker(self, fault_plan: Any = None) -> FakeWorker:
        if self.started and self.failures:
            self.failures -= 1
            raise RuntimeError("worker did not start: b''")
        worker = FakeWorker()
        self.started.append(worker)
        return worker


async def test_a_replacement_that_fails_to_start_is_tried_again(monkeypatch: Any) -> None:
    monkeypatch.setattr(pool, "RESTART_PAUSE_S", 0.01)
    cluster = FlakyCluster(failures=3)
    async with WorkerPool(cluster, 1):  # type: ignore[arg-type]
        cluster.started[0].exited.set()  # killed
        async with asyncio.timeout(5):
            while len(cluster.started) < 2:
                await asyncio.sleep(0.01)
    assert cluster.failures == 0 and len(cluster.started) == 2


async def test_a_worker_that_does_not_start_in_time_is_killed_not_left_polling(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """The pool tries again after a start that timed out; the one that timed out must not go
    on running (and taking work) beside the replacement."""
    slow = tmp_path / "slow-python"
    slow.write_text("#!/bin/sh\nexec sleep 60\n")
    slow.chmod(0o755)
    monkeypatch.setattr(worker_process.sys, "executable", str(slow))
    worker = worker_process.WorkerProcess({"PATH": "/usr/bin:/bin"}, tmp_path / "worker.log")
    with pytest.raises(TimeoutError):
        await worker.start(timeout_s=0.5)
    assert worker.returncode is not None, "the worker that never said it polls is still running"


def test_workers_share_one_bytecode_cache_out_of_the_checkout(tmp_path: Path, monkeypatch: Any) -> None:
    """Replacements start in about a second instead of recompiling every module: their
    environment writes bytecode, to a cache under the data directory."""
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    env = LabCluster(tmp_path / "cluster", ops=False).env()
    assert "PYTHONDONTWRITEBYTECODE" not in env
    assert Path(env["PYTHONPYCACHEPREFIX"]) == settings.data_dir() / "pycache"
