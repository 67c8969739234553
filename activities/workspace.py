"""The `prepare_workspace` and `prepare_fork` activities."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent import workspace
from contracts import PrepareForkInput, PrepareForkResult, PrepareWorkspaceInput, PrepareWorkspaceResult


@activity.defn
async def prepare_workspace(request: PrepareWorkspaceInput) -> PrepareWorkspaceResult:
    async with activity_boundary():
        return await workspace.prepare_workspace(request)


@activity.defn
async def prepare_fork(request: PrepareForkInput) -> PrepareForkResult:
    async with activity_boundary():
        return await workspace.prepare_fork(request)
