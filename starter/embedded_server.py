"""The embedded dev server, shared by every starter command of one data directory that needs it.

Two `starter run` commands at once used to share the server the first one started, and the first
to end stopped it under the other, which then died mid-run. Now each command that uses the
embedded server holds a lease on it while it runs, and the server outlives every lease:

- `DATA/embedded-server/gate` is held exclusively while a command checks for the server and
  starts it, and while a command decides whether to stop it: no two do either at once.
- `DATA/embedded-server/lease` is held shared by every command that uses the server. The one that
  ends while no other holds it (its exclusive lock succeeds) stops the server, whoever started
  it; one that ends while others hold it leaves the server to them.
- `DATA/embedded-server/server.json` names the server this directory's commands started (its pid
  and address, and whether it is kept). A server something else started at the same address (a
  `starter server`, a CLI of the user's) has no record and is never stopped here.

Locks are `flock`s: the kernel drops those of a process that dies, even by SIGKILL, so a killed
command never blocks the others; the server it started lives on (it is started in a session of
its own) and the next command to end with no other lease stops it.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import signal
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from pydantic import BaseModel, ValidationError

from lab.processes.temporal_server import DevServer, DevServerOptions, is_listening, split_address


class ServerRecord(BaseModel):
    """The embedded server this data directory's commands started."""

    pid: int
    # The address commands ask for (TEMPORAL_ADDRESS unset: `localhost:PORT`).
    address: str
    # Started or attached to with --keep-server: no command stops it.
    kept: bool = False


@dataclass
class EmbeddedServer:
    """What a command knows of the server it used: the address it serves at; its pid and whether it is kept
    when this directory's commands started it (`record`, None for a server something else
    started); whether this command started it, and, once it has let go, whether it stopped it."""

    address: str
    record: ServerRecord | None
    started_here: bool
    stopped: bool = False


@contextlib.asynccontextmanager
async def shared_embedded_server(
    directory: Path, address: str, ui_port: int | None, *, keep_server: bool
) -> AsyncIterator[EmbeddedServer]:
    """The server at `address`, started if nothing answers there, held for the block."""
    directory.mkdir(parents=True, exist_ok=True)
    host, port = split_address(address)
    with (directory / "gate").open("a") as gate, (directory / "lease").open("a") as lease:
        async with _held(gate):
            record = _live_record(directory, address)
            started: DevServer | None = None
            if not is_listening(host, port):
                # In a session of its own, not tied to this process: it outlives the command
                # that started it while other commands use it.
                started = DevServer(DevServerOptions(port=port, ui_port=ui_port, outlive_parent=True))
                await started.start()
                # Recorded under the address it was asked for (`localhost:7233`), which is
                # what the next command asks for too.
                record = ServerRecord(pid=started.pid or 0, address=address)
            if record is not None and keep_server:
                record = record.model_copy(update={"kept": True})
            _write_record(directory, record)
            fcntl.flock(lease, fcntl.LOCK_SH)
        served_at = started.address if started is not None else address
        embedded = EmbeddedServer(address=served_at, record=record, started_here=started is not None)
        try:
            yield embedded
        finally:
            fcntl.flock(lease, fcntl.LOCK_UN)
            async with _held(gate):
                if _alone(lease):
                    record = _live_record(directory, address)
                    if record is not None and not record.kept:
                        if started is not None and started.pid == record.pid:
                            await started.stop()  # its parent: stopped and reaped
                        else:
                            await _stop(record.pid, host, port)
                        _write_record(directory, None)
                        embedded.stopped = True
                    fcntl.flock(lease, fcntl.LOCK_UN)
            if started is not None and not embedded.stopped:
                started.disown()  # left to the commands still using it, or kept


@contextlib.asynccontextmanager
async def _held(lock: IO[str]) -> AsyncIterator[None]:
    # Blocking: another command may hold it for the seconds a server takes to start or stop.
    await asyncio.to_thread(fcntl.flock, lock, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)


def _alone(lease: IO[str]) -> bool:
    """True (and the lease held exclusively) when no other command holds it."""
    try:
        fcntl.flock(lease, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _live_record(directory: Path, address: str) -> ServerRecord | None:
    """The recorded server, if it is still the one that serves `address`."""
    path = directory / "server.json"
    try:
        record = ServerRecord.model_validate_json(path.read_text())
    except (OSError, ValidationError):
        return None
    if record.address != address or not _is_dev_server(record.pid):
        path.unlink(missing_ok=True)
        return None
    return record


def _write_record(directory: Path, record: ServerRecord | None) -> None:
    path = directory / "server.json"
    if record is None:
        path.unlink(missing_ok=True)
        return
    written = path.with_suffix(".tmp")
    written.write_text(record.model_dump_json())
    written.replace(path)


def _is_dev_server(pid: int) -> bool:
    """Whether `pid` is a running Temporal dev server (a pid the kernel gave to another
    process since is not ours to stop)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return False
    return b"server" in command and b"start-dev" in command


async def _stop(pid: int, host: str, port: int, timeout_s: float = 10.0) -> None:
    """SIGTERM, then SIGKILL if it has not gone within `timeout_s`."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout_s
    while _is_dev_server(pid) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    if _is_dev_server(pid):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    while is_listening(host, port, 0.1) and time.monotonic() < deadline + 5:
        await asyncio.sleep(0.05)


_SERVES_AGAIN = "`uv run python -m starter server` serves this history again"


def embedded_server_after(embedded: EmbeddedServer) -> str:
    """What became of the embedded dev server when the command let go of it."""
    record = embedded.record
    if record is None:
        return ""  # a server something else started: not this command's to tell
    if embedded.stopped:
        return f"(the embedded dev server has stopped; {_SERVES_AGAIN})"
    if record.kept:
        return f"(the embedded dev server keeps running, pid {record.pid}; stop it with `kill {record.pid}`)"
    return (
        f"(the embedded dev server, pid {record.pid}, keeps running for the other runs that use it; "
        "the last of them to end stops it)"
    )
