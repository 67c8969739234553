"""The activities of a run with parallel subtasks: a subtask's worktree, and its work merged back."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent import workspace
from agent.dependencies import Dependencies
from contracts import MergeSubtaskInput, MergeSubtaskResult, PrepareSubtaskInput, PrepareWorkspaceResult


class SubtaskActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="prepare_subtask")
    async def prepare_subtask(self, request: PrepareSubtaskInput) -> PrepareWorkspaceResult:
        async with activity_boundary(self.deps.attempts):
            return await workspace.prepare_subtask(self.deps, request)

    @activity.defn(name="merge_subtask")
    async def merge_subtask(self, request: MergeSubtaskInput) -> MergeSubtaskResult:
        async with activity_boundary(self.deps.attempts):
            return await workspace.merge_subtask(self.deps, request)
