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
from agent.hostile_tree import deadline_in
from agent.sandbox.disk_quota import measure as allocated
from contracts import DiskUse
from contracts.errors import WalkTooLong

# A workspace this slow to count holds millions of entries: no task needs that, and the
# worker's thread must not be held by it at every step.
MEASURE_DEADLINE_S = 20.0


def measure(checkpoints_root: Path, workspace: Path) -> DiskUse:
    """`checkpoints_root`: where checkpoint repositories live (agent.checkpoints.repository)."""
    deadline = deadline_in(MEASURE_DEADLINE_S)
    try:
        return DiskUse(
            workspace_bytes=_bytes(workspace, deadline),
            checkpoint_bytes=_bytes(checkpoints.repository(checkpoints_root, workspace), deadline),
        )
    except WalkTooLong:
        return DiskUse(uncounted=f"its workspace could not be measured within {MEASURE_DEADLINE_S:g} s")


def _bytes(path: Path, deadline: float | None) -> int:
    try:
        return allocated(path, deadline=deadline).bytes
    except FileNotFoundError:
        return 0  # a repository not made yet (or a workspace gone): nothing held
