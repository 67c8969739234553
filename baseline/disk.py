"""What a baseline run holds on the host's disk (agent.budget), as the loop measures it: at its
start, and after every tool that may write (the baseline makes no checkpoints: its repository
holds the fixture)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import disk_use
from agent.tools.registry import READ_ONLY_TOOLS
from contracts import DiskUse, ToolResult


async def measured(checkpoints_root: Path, workspace: Path) -> DiskUse:
    return await asyncio.to_thread(disk_use.measure, checkpoints_root, workspace)


async def disk_after(checkpoints_root: Path, disk: DiskUse, workspace: Path, result: ToolResult) -> DiskUse:
    """The run's disk after a tool call: its stored output counted, the workspace measured again
    if the tool may have written (in a thread: a walk of the tree)."""
    if result.artifact is not None:
        disk = disk.with_artifact(result.artifact.size_bytes)
    if result.tool in READ_ONLY_TOOLS:
        return disk
    return disk.measured(await asyncio.to_thread(disk_use.measure, checkpoints_root, workspace))
