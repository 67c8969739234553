"""Run one process with a clean environment, a timeout that kills its whole process group,
the limits of `agent.sandbox.containment` (its control group, its disk quota), and output that
is shown cut (head and tail) but kept whole as an artifact."""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.artifacts import ArtifactStore
from agent.sandbox.base import CommandOutcome, Limits
from agent.sandbox.containment import Containment
from contracts import ArtifactRef

# What a result shows: the first and the last bytes of the output.
HEAD_BYTES = 6000
TAIL_BYTES = 2000
# How long to wait for the output pipe to close once the command's group is dead.
_DRAIN_TIMEOUT_S = 2.0


@dataclass(frozen=True)
class Spawn:
    argv: Sequence[str]
    # The workspace: where the command starts, and what its disk quota measures.
    cwd: Path
    env: dict[str, str]
    limits: Limits
    backend: str
    sandboxed: bool
    # RLIMIT_NPROC counts every process of the user: a fallback only where the command runs
    # as a user of its own (and no control group bounds its processes).
    nproc_rlimit: bool = False
    # Descriptors the child keeps (what bubblewrap reads at start-up), and a step of the
    # backend's own in the child before the exec, after the containment's.
    pass_fds: tuple[int, ...] = ()
    preexec: Callable[[], None] | None = None


async def run_process(spawn: Spawn, timeout_s: float, artifacts: ArtifactStore) -> CommandOutcome:
    """Output too long to show whole is stored in `artifacts`."""
    started = time.perf_counter()
    containment = await Containment.open(spawn.limits, spawn.cwd, nproc_rlimit=spawn.nproc_rlimit)
    try:
        return await _run(spawn, timeout_s, containment, started, artifacts)
    finally:
        # Always, also on cancellation: whatever left the process group (a daemon) is still
        # in the control group, and goes with it.
        await containment.close()


async def _run(
    spawn: Spawn, timeout_s: float, containment: Containment, started: float, artifacts: ArtifactStore
) -> CommandOutcome:
    # Output goes to a pipe of our own, not one asyncio owns: asyncio's process.wait() also
    # waits for its pipes to close, so a background child holding them (`sleep 30 &`) would
    # turn a finished command into a timeout (python/cpython#119710).
    read_fd, write_fd = os.pipe()
    try:
        process = await asyncio.create_subprocess_exec(
            *spawn.argv,
            cwd=spawn.cwd,
            env=spawn.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=write_fd,
            stderr=write_fd,
            start_new_session=True,
            preexec_fn=_then(containment.preexec(), spawn.preexec),
            pass_fds=spawn.pass_fds,
        )
    except BaseException:
        os.close(read_fd)
        raise
    finally:
        os.close(write_fd)
        containment.spawned()

    def stop() -> None:
        _kill_group(process.pid)

    # What is stored of the output (Limits.artifact_bytes); a flood beyond it is counted, not kept.
    capture = _Capture(lambda size: containment.count_output(size, stop), spawn.limits.artifact_bytes, artifacts)
    reader = asyncio.create_task(capture.read(read_fd))
    watcher = asyncio.create_task(containment.watch(stop))
    timed_out = False
    try:
        await asyncio.wait_for(process.wait(), timeout=timeout_s)
    except TimeoutError:
        timed_out = True
    except BaseException:
        # Cancelled (the activity was): no one will read this output, so the reader stops and
        # the scratch file goes, rather than staying open and on disk.
        reader.cancel()
        capture.discard()
        raise
    finally:
        watcher.cancel()
        # Always, also on cancellation: a command leaves nothing running behind it, and
        # killing its group closes the pipe for the reader.
        _kill_group(process.pid)
        await process.wait()
        with contextlib.suppress(asyncio.CancelledError):
            await watcher
    # A descendant that left the group may still hold the pipe: keep what was read by then
    # (wait_for cancels the reader on timeout, before the capture is closed).
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(reader, timeout=_DRAIN_TIMEOUT_S)
    output, artifact = capture.finish()
    # A command the watcher stopped was killed, not timed out, whatever the clock says.
    timed_out = timed_out and containment.stopped_by is None
    exit_code = None if timed_out else process.returncode
    limit, message = await containment.judge(exit_code, timed_out)
    return CommandOutcome(
        exit_code=exit_code,
        output=output,
        truncated=artifact is not None,
        timed_out=timed_out,
        duration_ms=(time.perf_counter() - started) * 1000,
        backend=spawn.backend,
        sandboxed=spawn.sandboxed,
        artifact=artifact,
        limit=limit,
        limit_message=message,
        usage=containment.usage(),
        enforced=containment.enforced,
    )


class _Capture:
    """Head and tail in memory; everything (up to a limit) in a scratch file that becomes an
    artifact only when the output was too long to show whole."""

    def __init__(self, counted: Callable[[int], None], limit: int, artifacts: ArtifactStore) -> None:
        self.artifacts = artifacts
        self.counted = counted
        # Never below what a result shows whole: short output is read back from the scratch file.
        self.limit = max(limit, HEAD_BYTES + TAIL_BYTES)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0
        self.digest = hashlib.sha256()
        self.scratch = artifacts.scratch_path()
        self.file = self.scratch.open("wb")

    async def read(self, read_fd: int) -> None:
        loop = asyncio.get_running_loop()
        stream = asyncio.StreamReader()
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream), os.fdopen(read_fd, "rb", buffering=0)
        )
        try:
            while chunk := await stream.read(65536):
                self._take(chunk)
        finally:
            transport.close()

    def _take(self, chunk: bytes) -> None:
        room = self.limit - self.total
        if room > 0:
            kept = chunk[:room]
            self.file.write(kept)
            self.digest.update(kept)
        self.total += len(chunk)
        self.counted(len(chunk))
        if len(self.head) < HEAD_BYTES:
            self.head += chunk[: HEAD_BYTES - len(self.head)]
        self.tail = (self.tail + chunk)[-TAIL_BYTES:]

    def discard(self) -> None:
        self.file.close()
        self.scratch.unlink(missing_ok=True)

    def finish(self) -> tuple[str, ArtifactRef | None]:
        self.file.close()
        if self.total <= HEAD_BYTES + TAIL_BYTES:
            data = self.scratch.read_bytes()
            self.scratch.unlink()
            return _decode(data), None
        shown = shown_text(bytes(self.head), bytes(self.tail), self.total)
        if self.total > self.limit:
            shown += f"\n... [only the first {self.limit} bytes were stored]"
        return shown, self.artifacts.adopt(self.scratch, self.digest.hexdigest())


def shown_text(head: bytes, tail: bytes, total: int) -> str:
    """What a result shows of output too long to show whole."""
    omitted = total - len(head) - len(tail)
    return f"{_decode(head)}\n... [{omitted} bytes omitted] ...\n{_decode(tail)}"


def _decode(data: bytes) -> str:
    """Tool output as text; bytes that are not UTF-8 are replaced, never an exception."""
    return data.decode("utf-8", errors="replace")


def _then(first: Callable[[], None], second: Callable[[], None] | None) -> Callable[[], None]:
    if second is None:
        return first

    def both() -> None:
        first()
        second()

    return both


def _kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
