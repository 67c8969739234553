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
    process = await asyncio.create_subprocess_exec(
        "/bin/sh",
        "-c",
        command,
        cwd=workspace,
        env=command_environment(workspace),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    reader = asyncio.create_task(_read_capped(process.stdout))  # type: ignore[arg-type]
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), timeout=timeout_s)
    except TimeoutError:
        timed_out = True
    finally:
        # Always, also on cancellation: a command leaves nothing running behind it
        # (a background child would otherwise hold the output pipe open).
        _kill_group(process.pid)
        await process.wait()
    data, dropped = await reader
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


async def _read_capped(stream: asyncio.StreamReader) -> tuple[bytes, int]:
    """Everything up to the cap, then only a count of what was dropped."""
    kept = bytearray()
    dropped = 0
    while chunk := await stream.read(65536):
        room = _CAPTURE_LIMIT_BYTES - len(kept)
        kept += chunk[:room]
        dropped += max(0, len(chunk) - room)
    return bytes(kept), dropped


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pid, signal.SIGKILL)
