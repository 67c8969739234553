"""The model calls of an agent run: the goal's interpretation, a plan, the next action, through
one provider interface. A provider that fails raises a ProviderError carrying what the failed
attempt cost; retrying is the caller's to decide (Temporal for the durable runtime, the loop
itself for the baseline).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import faults
from agent.conversation import load_turns
from agent.dependencies import Dependencies
from agent.faults import FaultPoint
from agent.providers.factory import build_provider
from agent.tools.listing import workspace_files
from agent.tools.registry import tool_specs
from contracts import (
    CompileGoalInput,
    CompileGoalResult,
    DraftPlanInput,
    DraftPlanResult,
    GoalSpec,
    Plan,
    Postcondition,
    ProposeActionInput,
    ProposeActionResult,
)


async def compile_goal(deps: Dependencies, request: CompileGoalInput) -> CompileGoalResult:
    reply = await build_provider(request.provider, deps).interpret_goal(request.goal, tool_specs(request.tools))
    spec = GoalSpec(
        goal=request.goal,
        summary=reply.value.summary,
        constraints=reply.value.constraints,
        # Declared by the task, not by the model: the model never decides how it is judged.
        acceptance=request.acceptance,
    )
    return CompileGoalResult(goal_spec=spec, usage=reply.usage)


async def draft_plan(deps: Dependencies, request: DraftPlanInput) -> DraftPlanResult:
    spec = request.goal_spec
    provider = build_provider(request.provider, deps)
    tools = tool_specs(request.tools)
    if request.revision is None:
        reply = await provider.draft_plan(spec.goal, spec.summary, tools)
    else:
        reply = await provider.draft_plan(spec.goal, spec.summary, tools, request.revision)
    return DraftPlanResult(plan=with_acceptance(reply.value, spec.acceptance), usage=reply.usage)


def with_acceptance(drafted: Plan, acceptance: list[Postcondition]) -> Plan:
    """A drafted plan declares no postconditions (a model never decides how work is judged):
    its last task in run order, which nothing depends on, gets the goal's acceptance, so the
    plan ends only when the goal holds. Not every sink: a sink run earlier could not pass checks
    that need a later task's work. A plan that declares its own (a script's) stays as it is."""
    if not acceptance or any(task.postconditions for task in drafted.subtasks):
        return drafted
    last = drafted.topological_order()[-1].id
    tasks = [
        task.model_copy(update={"postconditions": list(acceptance)}) if task.id == last else task
        for task in drafted.subtasks
    ]
    return drafted.model_copy(update={"subtasks": tasks})


async def propose_action(deps: Dependencies, request: ProposeActionInput) -> ProposeActionResult:
    if request.conversation is not None and not request.history:
        turns = await asyncio.to_thread(load_turns, deps.artifacts, request.conversation)
        request = request.model_copy(update={"history": turns})
    if request.workspace and not request.workspace_files:
        listing = await asyncio.to_thread(workspace_files, Path(request.workspace))
        request = request.model_copy(update={"workspace_files": listing})
    result = await build_provider(request.provider, deps).propose(request, tool_specs(request.tools))
    # A crash here loses an answer already paid for: the retry pays again.
    await faults.reach(deps.fault_plan, FaultPoint.MODEL_CALL, run_id=request.run_id, step=request.step)
    return result
