"""Who runs a workspace's commands when the worker is root: a user of the workspace's own.

`prepare_workspace` gives each workspace a uid derived from its name, and a root worker's
sandbox runs commands as the workspace's owner. RLIMIT_NPROC counts every process of a uid on
the host, so with one shared user a fork bomb in one run would leave the runs beside it unable
to start a process; with a user per workspace, the limit bounds each run alone. A workspace
owned by root (a directory a person made) runs as `nobody`, never as root.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

NOBODY = 65534
# Past systemd's container range (524288-1879048191) and below 2**31: no distribution
# allocates users there, and tools that hold ids in a signed int still read them right.
FIRST_WORKSPACE_UID = 1_900_000_000
WORKSPACE_UIDS = 200_000_000


def workspace_owner(name: str) -> tuple[int, int]:
    """The uid and gid a workspace of this name belongs to (the same number for both)."""
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    uid = FIRST_WORKSPACE_UID + digest % WORKSPACE_UIDS
    return uid, uid


def command_user(workspace: Path) -> tuple[int, int]:
    """Whom a root worker runs commands in `workspace` as: its owner, or `nobody` for root's."""
    owner = workspace.stat()
    if owner.st_uid == 0:
        return NOBODY, NOBODY
    return owner.st_uid, owner.st_gid
