"""The `prepare_workspace` activity."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent import workspace
from contracts import PrepareWorkspaceInput, PrepareWorkspaceResult


@activity.defn
async def prepare_workspace(request: PrepareWorkspaceInput) -> PrepareWorkspaceResult:
    async with activity_boundary():
        return await workspace.prepare_workspace(request)
