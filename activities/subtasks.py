"""The activities of a run with parallel subtasks: a subtask's worktree, and its work merged back."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent import workspace
from contracts import MergeSubtaskInput, MergeSubtaskResult, PrepareSubtaskInput, PrepareWorkspaceResult


@activity.defn
async def prepare_subtask(request: PrepareSubtaskInput) -> PrepareWorkspaceResult:
    async with activity_boundary():
        return await workspace.prepare_subtask(request)


@activity.defn
async def merge_subtask(request: MergeSubtaskInput) -> MergeSubtaskResult:
    async with activity_boundary():
        return await workspace.merge_subtask(request)
