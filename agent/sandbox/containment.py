"""The limits of one command, whichever policy let it through: set before it starts, watched
while it runs, and judged after, so that a limit hit is a result the model reads (which limit,
what was measured) and never a crashed worker or a starved host.

| limit      | bound on the whole command                  | where that is missing           |
| ---------- | ------------------------------------------- | ------------------------------- |
| memory     | control group memory limit (OOM inside it)  | RLIMIT_AS, per process          |
| processes  | control group pids.max                      | RLIMIT_NPROC, when the command  |
|            |                                             | runs as a user of its own       |
| cpu_time   | the group's CPU time, watched; its CPU rate | RLIMIT_CPU, per process; no     |
|            | capped (cpu_cores) so the host keeps a core | rate cap                        |
| disk       | workspace growth, watched (disk_quota);     | (always)                        |
|            | RLIMIT_FSIZE; /tmp a tmpfs of fixed size    |                                 |
| wall_time  | the timeout kills its process group         | (always)                        |
| output     | output read, counted                        | (always)                        |

Commands also run niced, so the worker and the host's own work go first. Each outcome lists
the whole-command bounds that held (`enforced`); `describe()` says it for a host.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import time
from collections.abc import Callable
from pathlib import Path

from agent.sandbox import cgroups
from agent.sandbox.base import Limits, Usage
from agent.sandbox.cgroups import CommandGroup, Sample
from agent.sandbox.disk_quota import Footprint, measure, written
from agent.sandbox.limit_messages import said
from contracts import ResourceLimit

# The watcher's tick. The workspace is walked every tick, or less often when a walk is slow,
# so that walking takes at most a quarter of one core (a tree of millions of files); the
# quick counts (control group, /proc/<pid>/io, statvfs) are read every tick.
MIN_TICK_S = 0.02
MAX_TICK_S = 1.0
_WALK_SHARE = 0.25
# RLIMIT_CPU stays as a backstop per process, later than the group's own bound, so that the
# group's (which names the limit) acts first.
_CPU_BACKSTOP_S = 2


def describe() -> str:
    """Which limits this host enforces on a whole command, and why others are weaker here."""
    found = cgroups.support()
    enforced = sorted(_group_limits(found) | _ALWAYS)
    line = f"whole-command limits enforced here: {', '.join(enforced)}"
    return f"{line} (control groups: {found.reason})" if found.reason else line


_ALWAYS = frozenset({ResourceLimit.DISK, ResourceLimit.WALL_TIME, ResourceLimit.OUTPUT})


def _group_limits(found: cgroups.Support) -> frozenset[ResourceLimit]:
    by_controller = {"memory": ResourceLimit.MEMORY, "pids": ResourceLimit.PROCESSES}
    enforced = {limit for controller, limit in by_controller.items() if found.has(controller)}
    if found.has("cpuacct") or (found.version == 2 and found.has("cpu")):
        enforced.add(ResourceLimit.CPU_TIME)
    return frozenset(enforced)


class Containment:
    """One command's limits. `open` before spawning (it makes the group and measures the
    workspace), `preexec` in the child, `watch` while it runs, `judge` and `close` after."""

    def __init__(self, limits: Limits, workspace: Path, group: CommandGroup | None, nproc_rlimit: bool) -> None:
        self.limits = limits
        self.workspace = workspace
        self.group = group
        self._nproc_rlimit = nproc_rlimit
        self._baseline = Footprint(0, 0)
        self._disk_peak = Footprint(0, 0)
        self._sample: Sample | None = None
        self.stopped_by: ResourceLimit | None = None
        self.output_bytes = 0
        self._join_fds: list[int] = []
        self._fs_used_at_start = 0
        found = cgroups.support()
        self.enforced = _ALWAYS | (_group_limits(found) if group is not None else frozenset())
        if group is None and nproc_rlimit:
            self.enforced |= {ResourceLimit.PROCESSES}
        if limits.processes is None:
            self.enforced -= {ResourceLimit.PROCESSES}

    @classmethod
    async def open(cls, limits: Limits, workspace: Path, *, nproc_rlimit: bool) -> Containment:
        group = await asyncio.to_thread(_make_group, limits)
        containment = cls(limits, workspace, group, nproc_rlimit)
        try:
            await asyncio.to_thread(containment._take_baseline)
        except BaseException:
            await containment.close()
            raise
        return containment

    def _take_baseline(self) -> None:
        self._fs_used_at_start = _fs_used(self.workspace)
        self._baseline = measure(self.workspace)

    def preexec(self) -> Callable[[], None]:
        """Applied in the child before exec and inherited by everything the command starts."""
        fds = self._join_fds = self.group.join_fds() if self.group is not None else []
        rlimits = self._rlimits()
        niceness = self.limits.niceness

        def apply() -> None:
            CommandGroup.join(fds)
            for kind, value in rlimits:
                _soft, hard = resource.getrlimit(kind)
                ceiling = value if hard == resource.RLIM_INFINITY else min(value, hard)
                with contextlib.suppress(ValueError, OSError):
                    resource.setrlimit(kind, (ceiling, ceiling))
            with contextlib.suppress(OSError):
                os.nice(niceness)

        return apply

    def spawned(self) -> None:
        """The child has joined (or failed to start): the worker's descriptors go."""
        for fd in self._join_fds:
            os.close(fd)
        self._join_fds = []

    def _rlimits(self) -> list[tuple[int, int]]:
        limits, group = self.limits, self.group
        has = cgroups.support().has if group is not None else (lambda _controller: False)
        cpu_group = has("cpuacct") or (cgroups.support().version == 2 and has("cpu"))
        chosen = [
            (resource.RLIMIT_CPU, limits.cpu_seconds + (_CPU_BACKSTOP_S if cpu_group else 0)),
            (resource.RLIMIT_FSIZE, min(limits.file_bytes, limits.disk_bytes)),
            (resource.RLIMIT_NOFILE, limits.open_files),
        ]
        # Per process, and it breaks programs that reserve address space they never use
        # (runtimes, sanitizers): only where no group bounds the memory actually used.
        if not has("memory"):
            chosen.append((resource.RLIMIT_AS, limits.memory_bytes))
        if not has("pids") and self._nproc_rlimit and limits.processes is not None:
            chosen.append((resource.RLIMIT_NPROC, limits.processes))
        return chosen

    def count_output(self, size: int, stop: Callable[[], None]) -> None:
        self.output_bytes += size
        if self.output_bytes > self.limits.output_bytes and self.stopped_by is None:
            self.stopped_by = ResourceLimit.OUTPUT
            stop()

    async def watch(self, stop: Callable[[], None]) -> None:
        """Until cancelled: stop the command at the first tick past its disk or CPU-time bound.
        Two loops, each in a thread: quick counts every tick, and walks of the workspace, which
        take long on a large tree and must not hold the quick counts back."""
        loops = [asyncio.create_task(self._loop(self._quick_check)), asyncio.create_task(self._loop(self._walk))]
        try:
            done, _ = await asyncio.wait(loops, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for loop in loops:
                loop.cancel()
        breach = next(iter(done)).result()
        if self.stopped_by is None:
            self.stopped_by = breach
            stop()
            if self.group is not None:
                await asyncio.to_thread(self.group.kill)

    async def _loop(self, check: Callable[[], tuple[ResourceLimit | None, float]]) -> ResourceLimit:
        """Run `check` in a thread until it finds a breach, sleeping what it asks between."""
        while True:
            try:
                breach, pause = await asyncio.to_thread(check)
            except OSError:
                breach, pause = None, MIN_TICK_S  # the workspace or a group went away meanwhile
            if breach is not None:
                return breach
            await asyncio.sleep(pause)

    def _walk(self) -> tuple[ResourceLimit | None, float]:
        started = time.perf_counter()
        grown = self._measure()
        spent = time.perf_counter() - started
        if grown.bytes >= self.limits.disk_bytes or grown.files > self.limits.disk_files:
            return ResourceLimit.DISK, 0
        return None, min(MAX_TICK_S, max(MIN_TICK_S, spent / _WALK_SHARE - spent))

    def _quick_check(self) -> tuple[ResourceLimit | None, float]:
        if self.group is None:
            return None, MAX_TICK_S
        if self._fast_disk_estimate() >= self.limits.disk_bytes:
            return ResourceLimit.DISK, 0
        self._sample = self.group.sample()
        seconds = self._sample.cpu_seconds
        if seconds is not None and seconds >= self.limits.cpu_seconds:
            return ResourceLimit.CPU_TIME, 0
        return None, MIN_TICK_S

    def _fast_disk_estimate(self) -> int:
        """What the command added at most, by two O(1) counts that each only overstate it
        (disk_quota): their smaller. Recorded as the peak when it is past what a walk found."""
        assert self.group is not None
        estimate = min(written(self.group.pids()), _fs_used(self.workspace) - self._fs_used_at_start)
        if estimate >= self.limits.disk_bytes:
            self._disk_peak = Footprint(max(self._disk_peak.bytes, estimate), self._disk_peak.files)
        return estimate

    def _measure(self) -> Footprint:
        pids = self.group.pids() if self.group is not None else []
        grown = measure(self.workspace, pids) - self._baseline
        self._disk_peak = Footprint(max(self._disk_peak.bytes, grown.bytes), max(self._disk_peak.files, grown.files))
        return grown

    async def judge(self, exit_code: int | None, timed_out: bool) -> tuple[ResourceLimit | None, str]:
        """Which limit stopped the command, in words the model can act on; measured before
        `close` empties the group."""
        await asyncio.to_thread(self._final_sample)
        limit = self.stopped_by
        sample = self._sample
        # A fork bomb at its process limit burns CPU retrying: the processes are the cause.
        if limit is ResourceLimit.CPU_TIME and sample is not None and sample.process_limit_hits:
            limit = ResourceLimit.PROCESSES
        # Named even when the command then exited 0: a process of it was killed, or could not
        # start, and what it printed may not say so.
        if limit is None and sample is not None and sample.oom_kills:
            limit = ResourceLimit.MEMORY
        if limit is None and sample is not None and sample.process_limit_hits:
            limit = ResourceLimit.PROCESSES
        if limit is None and _killed_by(exit_code, signal.SIGXFSZ):
            limit = ResourceLimit.DISK
        if limit is None and _killed_by(exit_code, signal.SIGXCPU):
            limit = ResourceLimit.CPU_TIME
        if limit is None and timed_out:
            limit = ResourceLimit.WALL_TIME
        return limit, said(limit, self.limits, self.usage())

    def _final_sample(self) -> None:
        with contextlib.suppress(OSError):
            if self.group is not None:
                self._sample = self.group.sample()
            self._measure()

    def usage(self) -> Usage:
        sample = self._sample
        return Usage(
            memory_peak_bytes=sample.memory_peak_bytes if sample else None,
            processes_peak=sample.processes_peak if sample else None,
            cpu_seconds=sample.cpu_seconds if sample else None,
            disk_bytes=self._disk_peak.bytes,
            disk_files=self._disk_peak.files,
            output_bytes=self.output_bytes,
        )

    async def close(self) -> None:
        """Nothing of the command is left running, and its group is gone."""
        if self.group is not None:
            group = self.group
            self.group = None
            await asyncio.to_thread(_empty_and_remove, group)


def _make_group(limits: Limits) -> CommandGroup | None:
    """None where there are no groups to have, or this one could not be made or limited (the
    probe made one, but a hierarchy may refuse a limit): the command runs on rlimits alone, and
    its outcome's `enforced` says so, rather than not running at all."""
    found = cgroups.support()
    if not found.bases:
        return None
    try:
        return CommandGroup(limits, found)
    except OSError:
        return None


def _empty_and_remove(group: CommandGroup) -> None:
    group.kill()
    group.remove()


def _fs_used(path: Path) -> int:
    """Bytes in use on the filesystem holding `path` (ext4 counts delayed allocations too)."""
    info = os.statvfs(path)
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def _killed_by(exit_code: int | None, sig: signal.Signals) -> bool:
    """Died of `sig` itself, or its shell said so (128 + the signal)."""
    return exit_code is not None and exit_code in (-sig, 128 + sig)
