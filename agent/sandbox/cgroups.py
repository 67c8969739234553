"""A control group per command: the kernel bounds the memory, processes and CPU of a command
and of everything it starts, and counts what they used.

Rlimits cannot do this: RLIMIT_AS and RLIMIT_CPU bound each process alone (a command that
forks multiplies them) and RLIMIT_NPROC counts every process of a user on the host. A group
holds the command and every descendant (leaving it takes the privilege the sandbox drops),
so its limits bound the command as a whole, and the OOM killer it triggers stays inside it.

Where: `<the worker's own group>/agent-lab-<pid>-<n>` in each controller's hierarchy (cgroup
v1: memory, pids, cpu, cpuacct; v2: one directory), removed after the command, so nothing of
the lab stays in a group it does not own. Nested under the worker's group, the command is also
counted against whatever bounds the worker. Joining costs a few milliseconds per hierarchy
(the kernel waits for an RCU grace period on each v1 migration). Probed once: where there is no
hierarchy, or it is not writable (not root, nothing delegated), `support()` says why and
commands run without a group (rlimits remain). The v1 layout is the one tested here; v2 is
used where the worker's group can delegate controllers (an empty group of its own, as
`systemd-run --scope -p Delegate=yes` gives).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent.sandbox.base import Limits
from agent.sandbox.cgroup_mounts import V1_CONTROLLERS, cgroup_mounts, inside, own_groups

_PREFIX = "agent-lab-"
_V2_CONTROLLERS = ("memory", "pids", "cpu")
_KILL_ROUNDS = 200
_counter = itertools.count()


@dataclass(frozen=True)
class Support:
    """Which controllers commands get, in which version; `reason` says why others are missing."""

    version: int | None
    # controller -> the worker's own group, where per-command groups are made (v2: one for all).
    bases: dict[str, Path]
    reason: str = ""

    def has(self, controller: str) -> bool:
        return controller in self.bases


@dataclass(frozen=True)
class Sample:
    memory_peak_bytes: int | None
    oom_kills: int
    processes_peak: int | None
    process_limit_hits: int
    cpu_seconds: float | None


@cache
def support() -> Support:
    """Probed once: which controllers this worker can give its commands."""
    try:
        own = own_groups()
        mounts = cgroup_mounts()
    except OSError as error:
        return Support(None, {}, f"cannot read this process's control groups: {error}")
    v1 = any(controller in mounts for controller in V1_CONTROLLERS)
    if "" in mounts and (mounts[""][0] / "cgroup.controllers").exists() and not v1:
        return _probe_v2(inside(mounts[""], own.get("", "/")))
    bases: dict[str, Path] = {}
    missing: list[str] = []
    for controller in V1_CONTROLLERS:
        if controller not in mounts:
            missing.append(f"{controller}: not mounted")
            continue
        base = inside(mounts[controller], own.get(controller, "/"))
        said = _try_group(base)
        if said:
            missing.append(f"{controller}: {said}")
        else:
            bases[controller] = base
    return Support(1 if bases else None, bases, "; ".join(missing))


def _probe_v2(own: Path) -> Support:
    """v2 allows no process in a group whose controllers are delegated to children: the
    worker's own group must hand them down (it can when it is the root or holds no process)."""
    try:
        wanted = [c for c in _V2_CONTROLLERS if c in (own / "cgroup.controllers").read_text().split()]
        (own / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
    except OSError as error:
        said = error.strerror or error
        return Support(None, {}, f"cgroup v2 at {own} cannot delegate controllers to commands: {said}")
    said = _try_group(own)
    if said:
        return Support(None, {}, f"cgroup v2: {said}")
    missing = [c for c in _V2_CONTROLLERS if c not in wanted]
    reason = f"cgroup v2: {', '.join(missing)} not available to this group" if missing else ""
    return Support(2, {controller: own for controller in wanted}, reason)


def _try_group(base: Path) -> str:
    """'' when a group can be made and removed under `base`; else why not."""
    probe = base / f"{_PREFIX}{os.getpid()}-probe"
    try:
        probe.mkdir()
        probe.rmdir()
    except OSError as error:
        return f"cannot create a group in {base}: {error.strerror or error}"
    _sweep(base)
    return ""


def _sweep(base: Path) -> None:
    """Groups left by a worker that died mid-command: removable once empty, and only those of
    a process that is gone (a live worker's group may be empty for a moment before its
    command joins)."""
    for group in base.glob(f"{_PREFIX}*"):
        pid = group.name.removeprefix(_PREFIX).split("-", 1)[0]
        if group.is_dir() and pid.isdigit() and not Path(f"/proc/{pid}").exists():
            with contextlib.suppress(OSError):
                group.rmdir()


class CommandGroup:
    """The group of one command: made before it starts, joined by it before exec, sampled
    while it runs, emptied and removed after."""

    def __init__(self, limits: Limits, found: Support) -> None:
        self._support = found
        name = f"{_PREFIX}{os.getpid()}-{next(_counter)}"
        self.dirs = {controller: base / name for controller, base in found.bases.items()}
        self._unique = sorted(set(self.dirs.values()))
        for directory in self._unique:
            directory.mkdir()
        try:
            self._limit(limits)
        except OSError:
            self.remove()
            raise

    def _limit(self, limits: Limits) -> None:
        v2 = self._support.version == 2
        if "memory" in self.dirs:
            memory = self.dirs["memory"]
            if v2:
                _write(memory / "memory.max", limits.memory_bytes)
                _write_if_present(memory / "memory.swap.max", 0)
            else:
                _write(memory / "memory.limit_in_bytes", limits.memory_bytes)
                # No swap either: without this a command could spill past its limit to swap.
                _write_if_present(memory / "memory.memsw.limit_in_bytes", limits.memory_bytes)
        if "pids" in self.dirs and limits.processes is not None:
            _write(self.dirs["pids"] / "pids.max", limits.processes)
        self.cap_cpu(limits.cpu_cores)

    def cap_cpu(self, cores: float) -> None:
        """At most `cores` of CPU for the whole group, from now on (no-op without a cpu group)."""
        cpu = self.dirs.get("cpu")
        if cpu is None:
            return
        if self._support.version == 2:
            period = 100_000
            _write(cpu / "cpu.max", f"{max(1000, int(cores * period))} {period}")
        else:
            period = int((cpu / "cpu.cfs_period_us").read_text())
            _write(cpu / "cpu.cfs_quota_us", max(1000, int(cores * period)))

    def join_fds(self) -> list[int]:
        """Opened in the worker, written in the child (`join`): the child after fork should
        do as little as it can, and a failure to open is the worker's to report."""
        return [os.open(directory / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for directory in self._unique]

    @staticmethod
    def join(fds: list[int]) -> None:
        """In the child before exec: everything it starts is born in the group."""
        pid = str(os.getpid()).encode()
        for fd in fds:
            os.write(fd, pid)

    def sample(self) -> Sample:
        v2 = self._support.version == 2
        memory, pids = self.dirs.get("memory"), self.dirs.get("pids")
        cpu = self.dirs.get("cpu" if v2 else "cpuacct")
        peak = oom = None
        if memory is not None:
            peak = _read_int(memory / ("memory.peak" if v2 else "memory.max_usage_in_bytes"))
            oom = _field(memory / ("memory.events" if v2 else "memory.oom_control"), "oom_kill")
        processes_peak = hits = None
        if pids is not None:
            processes_peak = _read_int(pids / "pids.peak")
            if processes_peak is None:
                processes_peak = _read_int(pids / "pids.current")
            hits = _field(pids / "pids.events", "max")
        seconds = None
        if cpu is not None:
            if v2:
                usec = _field(cpu / "cpu.stat", "usage_usec")
                seconds = None if usec is None else usec / 1e6
            else:
                nsec = _read_int(cpu / "cpuacct.usage")
                seconds = None if nsec is None else nsec / 1e9
        return Sample(peak, oom or 0, processes_peak, hits or 0, seconds)

    def pids(self) -> list[int]:
        """The processes in the group now."""
        try:
            return [int(line) for line in (self._unique[0] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def kill(self) -> None:
        """Every process still in the group, also those that left the command's process group
        or session (a daemon it started). Blocking: it waits until the group is empty."""
        if self._support.version == 2 and (self._unique[0] / "cgroup.kill").exists():
            _write(self._unique[0] / "cgroup.kill", 1)
        for _ in range(_KILL_ROUNDS):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.01)

    def remove(self) -> None:
        for directory in self._unique:
            for _ in range(50):
                try:
                    directory.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    # Busy for a moment after its last task died, until the kernel lets go.
                    time.sleep(0.02)


def _write(path: Path, value: int | str) -> None:
    path.write_text(str(value))


def _write_if_present(path: Path, value: int | str) -> None:
    if path.exists():
        with contextlib.suppress(OSError):
            _write(path, value)


def _read_int(path: Path) -> int | None:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _field(path: Path, key: str) -> int | None:
    """A `key value` line of a flat-keyed file (memory.oom_control, pids.events, cpu.stat)."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        name, _, value = line.partition(" ")
        if name == key and value.strip().isdigit():
            return int(value)
    return None


def make_group(limits: Limits) -> CommandGroup | None:
    """None where there are no groups to have, or this one could not be made or limited (the
    probe made one, but a hierarchy may refuse a limit): the command runs on rlimits alone, and
    its outcome's `enforced` says so, rather than not running at all."""
    found = support()
    if not found.bases:
        return None
    try:
        return CommandGroup(limits, found)
    except OSError:
        return None
