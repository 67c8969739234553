"""Where the control group hierarchies are mounted, and which group this process is in.

Read from /proc/self/cgroup and /proc/self/mountinfo, so a worker in a container (which sees
only part of each hierarchy, mounted at its root) finds its own group under the mount.
"""

from __future__ import annotations

from pathlib import Path

V1_CONTROLLERS = ("memory", "pids", "cpu", "cpuacct")


def own_groups() -> dict[str, str]:
    """controller -> this process's group path in that hierarchy ('' for v2)."""
    groups: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _id, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            groups[controller] = path
    return groups


Mount = tuple[Path, str]


def cgroup_mounts() -> dict[str, Mount]:
    """controller -> where its hierarchy is mounted, and which of its groups is mounted there
    ('' for the v2 hierarchy)."""
    mounts: dict[str, Mount] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields, _, rest = line.partition(" - ")
        fstype, _source, options = [*rest.split(" "), "", ""][:3]
        _id, _parent, _device, root, mount_point = fields.split(" ")[:5]
        if fstype == "cgroup2":
            mounts.setdefault("", (Path(mount_point), root))
        elif fstype == "cgroup":
            for option in options.split(","):
                if option in V1_CONTROLLERS:
                    mounts.setdefault(option, (Path(mount_point), root))
    return mounts


def inside(mount: Mount, group: str) -> Path:
    """The directory of `group` under a mount of part of its hierarchy (a container's)."""
    mount_point, root = mount
    if root != "/" and (group == root or group.startswith(root + "/")):
        group = group[len(root) :]
    return mount_point / group.lstrip("/")
