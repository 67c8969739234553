"""How fast a command may run as it nears its disk quota: what a writer adds past the quota is
what it writes before the watcher's next look, which a loaded machine makes late, and writing
is CPU work too, so a command's CPU is capped near the quota (agent.sandbox.disk_quota).
"""

from __future__ import annotations

import threading

from agent.sandbox.base import Limits
from agent.sandbox.cgroups import CommandGroup

# Past this share of its disk quota (by the walk, which does not overstate), a command runs at
# SLOWED_CORES until it is back under: what it can write over the quota before the watcher's
# next tick (later on a loaded machine) is then a tenth.
SLOW_AT = 0.25
SLOWED_CORES = 0.1
# Past the whole quota by its own count (which overstates only by rewrites), a command is all
# but stopped (a hundredth of a core) until the walk judges it: on a large tree that walk
# takes long, and the filesystem's count, which could end it at once, understates whenever
# another writer deletes.
HELD_CORES = 0.01


class DiskPace:
    """The CPU cap of one command's group, set by both watcher loops, each in its own thread."""

    def __init__(self, limits: Limits, group: CommandGroup | None) -> None:
        self._limits = limits
        self._group = group
        self._cores: float | None = None  # the cap now, when changed from the limit's
        self._lock = threading.Lock()

    def by(self, grown_bytes: int, grown_files: int, *, loosen: bool) -> None:
        """Held past the quota, slowed past SLOW_AT of it, else the limit's own pace."""
        limits = self._limits
        if grown_bytes >= limits.disk_bytes:
            self.set(HELD_CORES, loosen=loosen)
        elif grown_bytes >= SLOW_AT * limits.disk_bytes or grown_files >= SLOW_AT * limits.disk_files:
            self.set(SLOWED_CORES, loosen=loosen)
        else:
            self.set(None, loosen=loosen)

    def set(self, cores: float | None, *, loosen: bool = False) -> None:
        """Cap the group at `cores` (None: its limit's). Only tightens unless `loosen`: the
        quick check tightens, the walk, which measures, may loosen."""
        with self._lock:
            if self._group is None or cores == self._cores:
                return
            tighter = self._cores is None or (cores is not None and cores < self._cores)
            if tighter or loosen:
                self._group.cap_cpu(self._limits.cpu_cores if cores is None else min(cores, self._limits.cpu_cores))
                self._cores = cores
