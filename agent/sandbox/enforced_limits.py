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
| disk       | workspace growth, watched (disk_quota);     | (always); without a cpu group   |
|            | RLIMIT_FSIZE; /tmp a tmpfs of fixed size;   | no slowing near the quota       |
|            | slowed near the quota (its CPU rate cut)    |                                 |
| wall_time  | the timeout kills its process group         | (always)                        |
| output     | output read, counted                        | (always)                        |

Commands also run niced, so the worker and the host's own work go first. Each outcome lists
the whole-command bounds that held (`enforced`); `describe()` says it for a host.
"""

from __future__ import annotations

from agent.sandbox import cgroups
from contracts import ResourceLimit


def describe() -> str:
    """Which limits this host enforces on a whole command, and why others are weaker here."""
    found = cgroups.support()
    enforced = sorted(group_limits(found) | ALWAYS)
    line = f"whole-command limits enforced here: {', '.join(enforced)}"
    return f"{line} (control groups: {found.reason})" if found.reason else line


ALWAYS = frozenset({ResourceLimit.DISK, ResourceLimit.WALL_TIME, ResourceLimit.OUTPUT})


def group_limits(found: cgroups.Support) -> frozenset[ResourceLimit]:
    by_controller = {"memory": ResourceLimit.MEMORY, "pids": ResourceLimit.PROCESSES}
    enforced = {limit for controller, limit in by_controller.items() if found.has(controller)}
    if found.has("cpuacct") or (found.version == 2 and found.has("cpu")):
        enforced.add(ResourceLimit.CPU_TIME)
    return frozenset(enforced)
