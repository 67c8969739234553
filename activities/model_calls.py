"""The model activities: goal compilation, planning and action proposals.

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
    ProposeActionInput,
    ProposeActionResult,
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

    @activity.defn(name="plan")
    async def plan(self, request: DraftPlanInput) -> DraftPlanResult:
        """`draft_plan` under the name runs started before it was renamed still schedule
        (workflows.patches: `DRAFT_PLAN_ACTIVITY`)."""
        return await self.draft_plan(request)

    @activity.defn(name="propose_action")
    async def propose_action(self, request: ProposeActionInput) -> ProposeActionResult:
        # The provider sees which attempt this is (a seeded noisy provider draws per attempt).
        request = request.model_copy(update={"attempt": activity.info().attempt})
        async with activity_boundary(self.deps.attempts):
            result = await model_calls.propose_action(self.deps, request)
        return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures(self.deps.attempts)})
