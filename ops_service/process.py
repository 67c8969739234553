"""The service as a child process, for tests and the starter: started, waited for, stopped.

It dies with the process that started it (PR_SET_PDEATHSIG), so a killed test run or
starter leaves no service behind. Its request log goes to a file beside its database.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

from contracts.errors import InfrastructureError
from lab.processes.child_process import die_with_parent
from settings import PROJECT_ROOT

_ANNOUNCEMENT = "listening on "


class OpsServiceProcess:
    """`python -m ops_service` on 127.0.0.1. The first start picks a free port; a
    restart reuses it, so a URL handed out before a stop is valid again after the next start."""

    def __init__(self, db_path: Path, port: int = 0) -> None:
        self.db_path = db_path
        self.port = port
        self.log_path = db_path.with_suffix(".log")
        self._process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        if not self.port:
            raise InfrastructureError("the operations service has not started yet")
        return f"http://127.0.0.1:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.returncode is None

    async def start(self, timeout_s: float = 10.0) -> str:
        """Start the service and return its base URL once it accepts connections."""
        if self.running:
            return self.url
        self.db_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "ops_service", "--port", str(self.port), "--db", str(self.db_path),
                cwd=PROJECT_ROOT,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=log,
                # A session of its own: Ctrl-C in a terminal reaches the parent, which stops it.
                start_new_session=True,
                preexec_fn=die_with_parent,
            )  # fmt: skip
        try:
            # The server binds (and listens) before it prints, so the port answers from here on.
            line = await asyncio.wait_for(self._process.stdout.readline(), timeout_s)  # type: ignore[union-attr]
        except TimeoutError:
            await self.stop()
            message = f"the operations service did not start within {timeout_s:.0f} s; see {self.log_path}"
            raise InfrastructureError(message) from None
        text = line.decode(errors="replace").strip()
        if not text.startswith(_ANNOUNCEMENT):
            await self.stop()
            raise InfrastructureError(f"the operations service did not start: {self._log_tail()}")
        self.port = int(text.rpartition(":")[2])
        return self.url

    async def stop(self, timeout_s: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            try:
                await asyncio.wait_for(process.wait(), timeout_s)
            except TimeoutError:
                process.kill()
        # Reaps the child and closes the stdout pipe (an unclosed transport is a ResourceWarning).
        await process.wait()

    async def __aenter__(self) -> OpsServiceProcess:
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.stop()

    def _log_tail(self, lines: int = 5) -> str:
        try:
            text = self.log_path.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(text[-lines:]) or "(empty log)"
