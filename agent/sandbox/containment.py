"""The limits of one command, whichever policy let it through: set before it starts, watched
while it runs, and judged after (the table of bounds: agent.sandbox.enforced_limits).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import resource
import signal
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

from agent.sandbox import cgroups
from agent.sandbox.base import Limits, Usage
from agent.sandbox.cgroups import CommandGroup, Sample
from agent.sandbox.disk_pace import SLOWED_CORES, DiskPace
from agent.sandbox.disk_quota import Footprint, fs_files, fs_used, measure, written
from agent.sandbox.enforced_limits import ALWAYS, group_limits
from agent.sandbox.limit_messages import said
from contracts import ResourceLimit

# The watcher's tick. The workspace is walked every tick, or less often when a walk is slow,
# so that walking takes at most a quarter of one core (a tree of millions of files); the
# quick counts (control group, /proc/<pid>/io, statvfs) are read every tick.
MIN_TICK_S = 0.02
# The quick counts cost a few /proc reads (~0.1 ms): read twice as often as the fastest walk.
QUICK_TICK_S = 0.01
MAX_TICK_S = 1.0
_WALK_SHARE = 0.25
# RLIMIT_CPU stays as a backstop per process, later than the group's own bound, so that the
# group's (which names the limit) acts first.
_CPU_BACKSTOP_S = 2


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
        self._fs_files_at_start = 0
        # Set when one quick count alone passes a quota: the walk, which judges, goes at once
        # instead of after its pause (on a tree of thousands of files, a pause of 100 ms).
        self._walk_now = asyncio.Event()
        self._suspect = False
        self._last_walk_s = 0.0
        self._pace = DiskPace(limits, group)
        self._looked = False  # whether a check has run since the command started
        # What the last walk found grown, and what the command had dirtied when it began: the
        # quick check adds what it dirtied since, an estimate that overstates only by rewrites.
        self._walked_growth = 0
        self._dirtied_at_walk = 0
        found = cgroups.support()
        self.enforced = ALWAYS | (group_limits(found) if group is not None else frozenset())
        if group is None and nproc_rlimit:
            self.enforced |= {ResourceLimit.PROCESSES}
        if limits.processes is None:
            self.enforced -= {ResourceLimit.PROCESSES}

    @classmethod
    async def open(cls, limits: Limits, workspace: Path, *, nproc_rlimit: bool) -> Containment:
        group = await asyncio.to_thread(cgroups.make_group, limits)
        containment = cls(limits, workspace, group, nproc_rlimit)
        try:
            await asyncio.to_thread(containment._take_baseline)
        except BaseException:
            await containment.close()
            raise
        return containment

    def _take_baseline(self) -> None:
        # Slowed until the watcher's first look, which is prompt but can be late on a loaded
        # machine (a writer at 1 GB/s was 80 MiB in before it): a CPU cap is a budget per
        # 100 ms period, so a command that needs less than a tenth of that never notices.
        self._pace.set(SLOWED_CORES)
        self._fs_used_at_start = fs_used(self.workspace)
        self._fs_files_at_start = fs_files(self.workspace)
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
        loops = [
            asyncio.create_task(self._loop(self._quick_check, self._wake_walk)),
            asyncio.create_task(self._loop(self._walk, self._wait_for_walk)),
        ]
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

    async def _loop(
        self, check: Callable[[], tuple[ResourceLimit | None, float]], pause_for: Callable[[float], Awaitable[None]]
    ) -> ResourceLimit:
        """Run `check` in a thread until it finds a breach, pausing what it asks between."""
        while True:
            try:
                breach, pause = await asyncio.to_thread(check)
            except OSError:
                breach, pause = None, MIN_TICK_S  # the workspace or a group went away meanwhile
            if breach is not None:
                return breach
            await pause_for(pause)

    async def _wake_walk(self, pause: float) -> None:
        if self._suspect:
            self._walk_now.set()
        await asyncio.sleep(pause)

    async def _wait_for_walk(self, pause: float) -> None:
        """Brought forward, a walk still pauses as long as the last one took: walking at most
        half the time even while a count stays past its quota (a command rewriting one file)."""
        least = min(pause, max(MIN_TICK_S, self._last_walk_s))
        await asyncio.sleep(least)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._walk_now.wait(), pause - least)
        self._walk_now.clear()

    def _walk(self) -> tuple[ResourceLimit | None, float]:
        started = time.perf_counter()
        dirtied = self._dirtied()
        grown = self._measure()
        self._walked_growth, self._dirtied_at_walk = grown.bytes, dirtied
        spent = self._last_walk_s = time.perf_counter() - started
        if grown.bytes >= self.limits.disk_bytes or grown.files > self.limits.disk_files:
            return ResourceLimit.DISK, 0
        # A long walk is stale at its end: what the command dirtied meanwhile counts too (it
        # may be in files the walk had passed), so a walk loosens the pace only as far as that.
        self._pace.by(grown.bytes + self._dirtied() - dirtied, grown.files, loosen=True)
        self._looked = True
        return None, min(MAX_TICK_S, max(MIN_TICK_S, spent / _WALK_SHARE - spent))

    def _dirtied(self) -> int:
        return written(self.group.pids()) if self.group is not None else 0

    def _quick_check(self) -> tuple[ResourceLimit | None, float]:
        if self.group is None:
            return None, MAX_TICK_S
        if self._fast_disk_estimate() >= self.limits.disk_bytes:
            return ResourceLimit.DISK, 0
        self._sample = self.group.sample()
        seconds = self._sample.cpu_seconds
        if seconds is not None and seconds >= self.limits.cpu_seconds:
            return ResourceLimit.CPU_TIME, 0
        return None, QUICK_TICK_S

    def _fast_disk_estimate(self) -> int:
        """What the command added at most, by two O(1) counts (disk_quota says when each
        overstates): their smaller. Recorded as the peak when it is past what a walk found."""
        dirtied, grown = self._dirtied(), fs_used(self.workspace) - self._fs_used_at_start
        new_files = fs_files(self.workspace) - self._fs_files_at_start
        since_walk = self._walked_growth + dirtied - self._dirtied_at_walk
        # Only tightens (the next walk lifts a pace set by rewrites), except the start's
        # slowing, which the first look lifts when the command has written little.
        self._pace.by(since_walk, 0, loosen=not self._looked)
        self._looked = True
        self._suspect = max(dirtied, grown, since_walk) >= self.limits.disk_bytes or new_files > self.limits.disk_files
        estimate = min(dirtied, grown)
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


def _empty_and_remove(group: CommandGroup) -> None:
    group.kill()
    group.remove()


def _killed_by(exit_code: int | None, sig: signal.Signals) -> bool:
    """Died of `sig` itself, or its shell said so (128 + the signal)."""
    return exit_code is not None and exit_code in (-sig, 128 + sig)
