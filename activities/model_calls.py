"""The model activities: goal compilation and planning (a step's proposal goes with the last
step's record, `activities/fused.py`).

Every attempt's usage is counted: a failed attempt records what it cost (`activity_boundary`),
and the attempt that succeeds returns those costs beside its own (`failed_attempts`).
"""

from __future__ import annotations

from temporalio import activity

from activities import attempt_usage
from activities.boundary import activity_boundary
from agent import model_calls
from agent.dependencies import Dependencies
from contracts import (
    CompileGoalInput,
    CompileGoalResult,
    DraftPlanInput,
    DraftPlanResult,
)


class ModelActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="compile_goal")
    async def compile_goal(self, request: CompileGoalInput) -> CompileGoalResult:
        async with activity_boundary(self.deps.attempts):
            result = await model_calls.compile_goal(self.deps, request)
        return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures(self.deps.attempts)})

    @activity.defn(name="draft_plan")
    async def draft_plan(self, request: DraftPlanInput) -> DraftPlanResult:
        async with activity_boundary(self.deps.attempts):
            result = await model_calls.draft_plan(self.deps, request)
        return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures(self.deps.attempts)})
