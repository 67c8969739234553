"""`python worker.py` as a child process: started, waited for, killed like a crash would."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from pathlib import Path

from lab.processes.child_process import die_with_parent
from settings import PROJECT_ROOT

READY_LINE = b"worker polling"


class WorkerProcess:
    def __init__(self, env: dict[str, str], log_path: Path) -> None:
        self._env = env
        self._log_path = log_path
        self._process: asyncio.subprocess.Process | None = None
        self.started_at = 0.0

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    @property
    def returncode(self) -> int | None:
        return self._process.returncode if self._process else None

    async def start(self, timeout_s: float = 90.0) -> WorkerProcess:
        """Started and polling; a worker that does not say so in time is killed before the
        error is raised, so a supervisor that tries again never leaves one polling behind it
        (the soak found 26 such workers, each started on a loaded machine, each taking work)."""
        log = self._log_path.open("ab")
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "worker.py",
            cwd=PROJECT_ROOT,
            env=self._env,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        log.close()
        self.started_at = time.monotonic()
        stdout = self._process.stdout
        if stdout is None:
            raise RuntimeError("worker started without its stdout pipe")
        try:
            line = await asyncio.wait_for(stdout.readline(), timeout=timeout_s)
            if READY_LINE not in line:
                raise RuntimeError(f"worker did not start: {line!r}; see {self._log_path}")
        except BaseException:
            await self.stop()
            raise
        # Keep draining stdout so the worker never blocks on a full pipe.
        asyncio.get_running_loop().create_task(self._drain())
        return self

    async def wait_exit(self, timeout_s: float | None = 60.0) -> int:
        if self._process is None:
            raise RuntimeError("the worker was never started")
        return await asyncio.wait_for(self._process.wait(), timeout=timeout_s)

    def kill(self) -> None:
        """SIGKILL, the whole group: no cleanup, no goodbye, as a crash."""
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self._process.pid, signal.SIGKILL)

    async def stop(self) -> None:
        self.kill()
        if self._process is not None:
            await self._process.wait()

    async def _drain(self) -> None:
        if self._process is None or self._process.stdout is None:
            return
        while await self._process.stdout.read(65536):
            pass
