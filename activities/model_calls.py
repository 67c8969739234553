"""Model activities: goal compilation, planning and action proposals, via one provider interface.

Provider errors cross the activity boundary as typed ApplicationErrors (see activities.errors).
"""

from __future__ import annotations

from temporalio import activity

from activities.errors import ProviderError, to_application_error
from activities.heartbeat import heartbeating
from activities.providers.factory import build_provider
from activities.tools.registry import tool_specs
from contracts import (
    CompileGoalRequest,
    GoalCompilation,
    GoalSpec,
    PlanRequest,
    PlanResult,
    ProposalRequest,
    ProposalResult,
)


@activity.defn
async def compile_goal(request: CompileGoalRequest) -> GoalCompilation:
    try:
        async with heartbeating():
            reply = await build_provider(request.provider).interpret_goal(request.goal)
    except ProviderError as error:
        raise to_application_error(error) from None
    spec = GoalSpec(
        goal=request.goal,
        summary=reply.value.summary,
        constraints=reply.value.constraints,
        # Declared by the task, not by the model: the model never decides how it is judged.
        acceptance=request.acceptance,
    )
    return GoalCompilation(goal_spec=spec, usage=reply.usage)


@activity.defn
async def plan(request: PlanRequest) -> PlanResult:
    try:
        async with heartbeating():
            reply = await build_provider(request.provider).draft_plan(
                request.goal_spec.goal, request.goal_spec.summary, tool_specs()
            )
    except ProviderError as error:
        raise to_application_error(error) from None
    return PlanResult(plan=reply.value, usage=reply.usage)


@activity.defn
async def propose_action(request: ProposalRequest) -> ProposalResult:
    try:
        async with heartbeating():
            return await build_provider(request.provider).propose(request, tool_specs())
    except ProviderError as error:
        raise to_application_error(error) from None
