"""The model activities: goal compilation, planning and action proposals.

Every attempt's usage is counted: a failed attempt records what it cost (`activity_boundary`),
and the attempt that succeeds returns those costs beside its own (`failed_attempts`).
"""

from __future__ import annotations

from temporalio import activity

from activities import attempt_usage
from activities.boundary import activity_boundary
from agent import model_calls
from contracts import (
    CompileGoalInput,
    CompileGoalResult,
    DraftPlanInput,
    DraftPlanResult,
    ProposeActionInput,
    ProposeActionResult,
)


@activity.defn
async def compile_goal(request: CompileGoalInput) -> CompileGoalResult:
    async with activity_boundary():
        result = await model_calls.compile_goal(request)
    return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures()})


@activity.defn
async def draft_plan(request: DraftPlanInput) -> DraftPlanResult:
    async with activity_boundary():
        result = await model_calls.draft_plan(request)
    return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures()})


@activity.defn(name="plan")
async def plan(request: DraftPlanInput) -> DraftPlanResult:
    """`draft_plan` under the name runs started before it was renamed still schedule
    (workflows.patches: `DRAFT_PLAN_ACTIVITY`)."""
    return await draft_plan(request)


@activity.defn
async def propose_action(request: ProposeActionInput) -> ProposeActionResult:
    # The provider sees which attempt this is (a seeded noisy provider draws per attempt).
    request = request.model_copy(update={"attempt": activity.info().attempt})
    async with activity_boundary():
        result = await model_calls.propose_action(request)
    return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures()})
