"""What a run's workspace and its checkpoint repository hold on the host's disk, for the run's
host-disk budget (RunBudget.max_disk_bytes; the artifacts are counted by whoever holds the
run's results, from the sizes they carry).

Counted as the per-command quota counts a workspace (agent.sandbox.disk_quota.measure): bytes
allocated, hard links once, iteratively, never following a link or leaving the filesystem, so
neither a tree thousands of levels deep nor a symlink to elsewhere steers the count. Blocking,
and as long as the trees are large: call it in a thread.
"""

from __future__ import annotations

from pathlib import Path

from agent import checkpoints
from agent.sandbox.disk_quota import measure as allocated
from contracts import DiskUse


def measure(workspace: Path) -> DiskUse:
    return DiskUse(workspace_bytes=_bytes(workspace), checkpoint_bytes=_bytes(checkpoints.repository(workspace)))


def _bytes(path: Path) -> int:
    try:
        return allocated(path).bytes
    except FileNotFoundError:
        return 0  # a repository not made yet (or a workspace gone): nothing held
