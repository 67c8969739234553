"""Running a shell command in a workspace: asyncio subprocess, clean environment, timeout.

A timeout kills the whole process group, so a command's children die with it.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from activities.tools.output import MAX_OUTPUT_CHARS, decode, truncate

# Keep at most this much output in memory; the middle of a flood is dropped while reading.
_CAPTURE_LIMIT_BYTES = 4 * MAX_OUTPUT_CHARS
# How long to wait for the output pipe to close once the command's group is dead.
_DRAIN_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class CommandOutcome:
    exit_code: int | None
    output: str
    truncated: bool
    timed_out: bool
    duration_ms: float


def command_environment(workspace: Path) -> dict[str, str]:
    """A minimal environment: no inherited variables, so no secrets reach a command.

    The lab's own interpreter comes first on PATH, so `python -m pytest` in a fixture uses
    the same Python (and pytest) the lab runs on.
    """
    interpreter_dir = str(Path(sys.executable).parent)
    return {
        "PATH": f"{interpreter_dir}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(workspace),
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
    }


async def run_shell(command: str, workspace: Path, timeout_s: float) -> CommandOutcome:
    started = time.perf_counter()
    # Output goes to a pipe of our own, not one asyncio owns: asyncio's process.wait() also
    # waits for its pipes to close, so a background child holding them (`sleep 30 &`) would
    # turn a finished command into a timeout (python/cpython#119710).
    read_fd, write_fd = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            "/bin/sh",
            "-c",
            command,
            cwd=workspace,
            env=command_environment(workspace),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
    reader = asyncio.create_task(_read_capped(read_fd))
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), timeout=timeout_s)
    except TimeoutError:
        timed_out = True
    finally:
        # Always, also on cancellation: a command leaves nothing running behind it, and
        # killing its group closes the pipe for the reader.
        _kill_group(process.pid)
        await process.wait()
    try:
        data, dropped = await asyncio.wait_for(reader, timeout=_DRAIN_TIMEOUT_S)
    except TimeoutError:
        # A descendant left the process group and still holds the pipe: stop listening.
        data, dropped = b"", 0
    text, cut = truncate(decode(data))
    if dropped:
        text += f"\n... [{dropped} more bytes not captured]"
    return CommandOutcome(
        exit_code=None if timed_out else process.returncode,
        output=text,
        truncated=cut or dropped > 0,
        timed_out=timed_out,
        duration_ms=(time.perf_counter() - started) * 1000,
    )


async def _read_capped(read_fd: int) -> tuple[bytes, int]:
    """Everything up to the cap, then only a count of what was dropped."""
    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader()
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(read_fd, "rb", buffering=0)
    )
    kept = bytearray()
    dropped = 0
    try:
        while chunk := await stream.read(65536):
            room = max(0, _CAPTURE_LIMIT_BYTES - len(kept))
            kept += chunk[:room]
            dropped += len(chunk) - min(room, len(chunk))
    finally:
        transport.close()
    return bytes(kept), dropped


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
