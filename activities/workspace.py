"""The `prepare_workspace` and `prepare_fork` activities."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent import workspace
from agent.dependencies import Dependencies
from contracts import PrepareForkInput, PrepareForkResult, PrepareWorkspaceInput, PrepareWorkspaceResult


class WorkspaceActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="prepare_workspace")
    async def prepare_workspace(self, request: PrepareWorkspaceInput) -> PrepareWorkspaceResult:
        async with activity_boundary(self.deps.attempts):
            return await workspace.prepare_workspace(self.deps, request)

    @activity.defn(name="prepare_fork")
    async def prepare_fork(self, request: PrepareForkInput) -> PrepareForkResult:
        async with activity_boundary(self.deps.attempts):
            return await workspace.prepare_fork(self.deps, request)
