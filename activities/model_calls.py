"""Model activities: goal compilation, planning and action proposals, via one provider interface.

Every attempt's usage is counted: a failed attempt records what it cost, and the attempt that
succeeds returns those costs beside its own (`failed_attempts`). Provider errors cross the
activity boundary as typed ApplicationErrors (see activities.errors).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from temporalio import activity

from activities import attempt_usage
from activities.errors import ProviderError, to_application_error
from activities.heartbeat import heartbeating
from agent import faults
from agent.faults import FaultPoint
from agent.providers.factory import build_provider
from agent.tools.files import workspace_files
from agent.tools.registry import tool_specs
from contracts import (
    CompileGoalRequest,
    GoalCompilation,
    GoalSpec,
    Plan,
    PlanRequest,
    PlanResult,
    Postcondition,
    ProposalRequest,
    ProposalResult,
)

T = TypeVar("T")


async def _attempt(call: Callable[[], Awaitable[T]]) -> T:
    try:
        async with heartbeating():
            return await call()
    except ProviderError as error:
        if error.usage is not None:
            await attempt_usage.record_failed(error.usage)
        raise to_application_error(error) from None


@activity.defn
async def compile_goal(request: CompileGoalRequest) -> GoalCompilation:
    reply = await _attempt(lambda: build_provider(request.provider).interpret_goal(request.goal))
    spec = GoalSpec(
        goal=request.goal,
        summary=reply.value.summary,
        constraints=reply.value.constraints,
        # Declared by the task, not by the model: the model never decides how it is judged.
        acceptance=request.acceptance,
    )
    return GoalCompilation(goal_spec=spec, usage=reply.usage, failed_attempts=await attempt_usage.earlier_failures())


@activity.defn
async def plan(request: PlanRequest) -> PlanResult:
    spec = request.goal_spec
    reply = await _attempt(lambda: build_provider(request.provider).draft_plan(spec.goal, spec.summary, tool_specs()))
    planned = with_acceptance(reply.value, spec.acceptance)
    return PlanResult(plan=planned, usage=reply.usage, failed_attempts=await attempt_usage.earlier_failures())


def with_acceptance(drafted: Plan, acceptance: list[Postcondition]) -> Plan:
    """A drafted plan declares no postconditions (a model never decides how work is judged):
    its last task in run order, which nothing depends on, gets the goal's acceptance, so the
    plan ends only when the goal holds. Not every sink: a sink run earlier could not pass checks
    that need a later task's work. A plan that declares its own (a script's) stays as it is."""
    if not acceptance or any(task.postconditions for task in drafted.tasks):
        return drafted
    last = drafted.topological_order()[-1].id
    tasks = [
        task.model_copy(update={"postconditions": list(acceptance)}) if task.id == last else task
        for task in drafted.tasks
    ]
    return drafted.model_copy(update={"tasks": tasks})


@activity.defn
async def propose_action(request: ProposalRequest) -> ProposalResult:
    if request.workspace and not request.workspace_files:
        listing = await asyncio.to_thread(workspace_files, Path(request.workspace))
        request = request.model_copy(update={"workspace_files": listing})
    result = await _attempt(lambda: build_provider(request.provider).propose(request, tool_specs()))
    # A crash here loses an answer already paid for: the retry pays again.
    await faults.reach(FaultPoint.MODEL_CALL, run_id=request.run_id, step=request.step)
    return result.model_copy(update={"failed_attempts": await attempt_usage.earlier_failures()})
