"""A plan run as parallel subtasks (RunRequest.parallel_subtasks): the subtasks whose dependencies
are merged run at once, each a child run in its own git worktree with its own budget
(workflows.subtask_run); their work merges back in the plan's dependency order; then the next
ready subtasks, until none is left.

    DELEGATING (children run) -> MERGING (in dependency order) -> DELEGATING ... -> ACCEPTING
                                    \\-> REPLANNING (a child out of budget or that gave up, or
                                         work that did not merge: plan vN -> vN+1) -> DELEGATING

A revision is fed the reason and the subtasks done; the revised plan is the rest of the work. It is
a verified transition: the plan validates as a DAG, none of its subtasks is one already merged, and
the ledger records `plan_revised` with both versions and the reason.

Children start with ids derived from the parent's (`RUN.vN.SUBTASK`), which the Web UI shows as the
parent's children. Workflow code: deterministic, no I/O.
"""

from __future__ import annotations

import asyncio

from temporalio import workflow
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.exceptions import ActivityError, ApplicationError, ChildWorkflowError

with workflow.unsafe.imports_passed_through():
    from agent.budget import Spent, exhausted, for_subtask
    from contracts import (
        DraftPlanInput,
        DraftPlanResult,
        MergeSubtaskInput,
        MergeSubtaskResult,
        Plan,
        PlanRevision,
        RunRequest,
        RunResult,
        RunState,
        Subtask,
        SubtaskOrigin,
        Usage,
    )
    from contracts import activity_names as named
    from contracts.counts import counted
    from contracts.errors import MergeConflict
    from contracts.ledger import LedgerEntry
    from workflows import activity_options as options
    from workflows import calls, visibility
    from workflows.outcome import NOT_COMPLETED
    from workflows.run import Run

S = RunState


async def run_in_parallel(run: Run) -> str | None:
    """None once every subtask's work is merged (the goal's acceptance comes next); else why the
    run ended (it has moved to its end)."""
    snapshot, budget = run.snapshot, run.request.budget
    while True:
        plan = snapshot.plan.subtasks if snapshot.plan else []
        remaining = [subtask for subtask in plan if subtask.id not in snapshot.plan_progress.merged]
        if not remaining:
            return None
        spent = Spent(snapshot.step, snapshot.usage, run.elapsed_s(snapshot.started_at), disk=run.disk())
        if reason := exhausted(budget, spent, Spent(0, Usage(), 0.0), budget.max_steps_per_subtask):
            run.move(S.BUDGET_EXHAUSTED)
            waiting = ", ".join(t.id for t in remaining)
            return f"{reason} after {counted(snapshot.step, 'step')}, before subtasks {waiting}"
        ready = [subtask for subtask in remaining if set(subtask.depends_on) <= set(snapshot.plan_progress.merged)]
        if not ready:
            # Not in a plan that validated (a DAG, its done subtasks merged): said, never looped on.
            run.move(S.FAILED)
            waiting = ", ".join(each.id for each in remaining)
            return f"no subtask of plan v{snapshot.plan_progress.plan_version} can start: {waiting}"
        run.move(S.DELEGATING)
        ended = await asyncio.gather(*(_child(run, subtask, spent) for subtask in ready))
        for result in ended:
            # The children's stored output is the run's; their worktrees and the objects their
            # checkpoints add to the shared repository are not measured here.
            if result.disk is not None:
                snapshot.disk = snapshot.disk.with_artifact(result.disk.artifact_bytes)
        run.move(S.MERGING)
        failures = await _merge(run, ready, ended)
        if not failures:
            continue
        why = "; ".join(failures)
        if snapshot.plan_progress.plan_version > budget.max_plan_revisions:
            out_of_budget = any(result.outcome == S.BUDGET_EXHAUSTED for result in ended)
            run.move(S.BUDGET_EXHAUSTED if out_of_budget else S.FAILED)
            return f"{why} (plan v{snapshot.plan_progress.plan_version}, no revision left)"
        if (refused := await _revise(run, why)) is not None:
            return refused


def subtask_run_id(run_id: str, version: int, task_id: str) -> str:
    return f"{run_id}.v{version}.{task_id}"


async def _child(run: Run, subtask: Subtask, spent: Spent) -> RunResult:
    """The subtask's child run to its end, whatever its outcome."""
    request, snapshot = run.request, run.snapshot
    # From the request's run id, not the workflow's (the same, but a replay names it otherwise).
    child_id = subtask_run_id(request.run_id, snapshot.plan_progress.plan_version, subtask.id)
    origin = SubtaskOrigin(
        parent_run_id=run.run_id,
        parent_workspace=snapshot.workspace,
        checkpoint=snapshot.checkpoint,
        subtask=subtask,
        plan_version=snapshot.plan_progress.plan_version,
        workspace_files=snapshot.workspace_files,
        effects=snapshot.effects,
    )
    child = request.model_copy(
        update={
            "run_id": child_id,
            # Its workspace is its own; the world it acts on (services, a tenant) is the parent's.
            "trial_id": request.world_id,
            "budget": for_subtask(request.budget, spent, subtask.max_steps or request.budget.max_steps_per_subtask),
            "parallel_subtasks": False,
            "subtask": origin,
            "resume": None,
            "fork": None,
        }
    )
    try:
        return await workflow.execute_child_workflow(
            "AgentRunWorkflow",
            child,
            id=child_id,
            result_type=RunResult,
            search_attributes=_searchable(request),
            static_summary=f"subtask {subtask.id} of {run.run_id} (plan v{snapshot.plan_progress.plan_version})",
        )
    except ChildWorkflowError as error:
        return _not_completed(child, error)


def _searchable(request: RunRequest) -> TypedSearchAttributes | None:
    if not request.search_attributes:
        return None
    return TypedSearchAttributes(
        [SearchAttributePair(visibility.RUNTIME, "durable"), SearchAttributePair(visibility.TASK, request.task_id)]
    )


def _not_completed(child: RunRequest, error: ChildWorkflowError) -> RunResult:
    """The RunResult a child that did not complete failed with (workflows.outcome); a child
    that failed otherwise (terminated, a bug) is a FAILED subtask."""
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type == NOT_COMPLETED and cause.details:
        return RunResult.model_validate(cause.details[0])
    return RunResult(
        run_id=child.run_id, runtime="durable", task_id=child.task_id, outcome=S.FAILED, reason=str(cause or error)
    )


async def _merge(run: Run, ready: list[Subtask], ended: list[RunResult]) -> list[str]:
    """Each completed child's work merged, in the plan's order (a dependency order); what the
    run's plan must be revised for: children that did not complete, work that did not merge."""
    snapshot = run.snapshot
    version = snapshot.plan_progress.plan_version
    failures: list[str] = []
    events: list[LedgerEntry] = []
    for subtask, result in zip(ready, ended, strict=True):
        snapshot.step += len(result.steps)
        snapshot.steps.extend(result.steps)
        snapshot.usage += result.usage
        snapshot.wasted += result.wasted
        # Made whether or not its subtask completed; the next children count them.
        snapshot.effects.extend(result.effects)
        where = f"plan-v{version}/{subtask.id}"
        events.append(
            run.entries.entry(
                "subtask_finished",
                workflow.now(),
                where=where,
                task=subtask.id,
                subtask=result.run_id,
                outcome=result.outcome.value,
                reason=result.reason,
                steps=len(result.steps),
                usage=result.usage,
            )
        )
        if result.outcome != S.COMPLETED:
            failures.append(f"subtask {subtask.id} ended {result.outcome.value}: {result.reason}")
            continue
        merging = MergeSubtaskInput(
            workspace=snapshot.workspace, commit=result.checkpoint, subtask_run_id=result.run_id, subtask_id=subtask.id
        )
        try:
            summary = f"merge subtask {subtask.id}"
            merged = await calls.call(named.MERGE_SUBTASK, merging, MergeSubtaskResult, options.PREPARE, summary)
        except ActivityError as error:
            cause = error.cause
            if not (isinstance(cause, ApplicationError) and cause.type == MergeConflict.__name__):
                raise
            failures.append(f"subtask {subtask.id}'s work does not merge: {cause.message}")
            events.append(run.entries.entry("merge_conflict", workflow.now(), where=where, reason=cause.message))
            continue
        snapshot.checkpoint = merged.checkpoint
        snapshot.plan_progress.merged.append(subtask.id)
        events.append(run.entries.entry("subtask_merged", workflow.now(), where=where, checkpoint=merged.checkpoint))
    await calls.append_to_ledger(run, events)
    return failures


async def _revise(run: Run, reason: str) -> str | None:
    """Plan vN -> vN+1 for the rest of the work; None once the revised plan is verified and
    recorded, else why the run ended."""
    request, snapshot = run.request, run.snapshot
    version = snapshot.plan_progress.plan_version
    run.move(S.REPLANNING)
    goal_spec = snapshot.goal_spec
    if goal_spec is None:
        raise ApplicationError("a plan is revised only after the goal is compiled", non_retryable=True)
    revision = PlanRevision(version=version + 1, reason=reason, done=list(snapshot.plan_progress.merged))
    asked = DraftPlanInput(provider=request.provider, goal_spec=goal_spec, revision=revision, tools=request.tools)
    summary = f"revise the plan: v{version} -> v{version + 1}"
    planned = await calls.call(named.DRAFT_PLAN, asked, DraftPlanResult, options.for_model(request.retries), summary)
    snapshot.usage += planned.usage + planned.failed_attempts
    snapshot.wasted += planned.failed_attempts
    redone = sorted({subtask.id for subtask in planned.plan.subtasks} & set(snapshot.plan_progress.merged))
    if redone:
        run.move(S.FAILED)
        return f"plan v{version + 1} has subtasks already done ({', '.join(redone)}): refused"
    snapshot.plan = Plan(subtasks=planned.plan.topological_order())
    snapshot.plan_progress.plan_version = version + 1
    revised = run.entries.entry(
        "plan_revised",
        workflow.now(),
        where=f"plan-v{version + 1}",
        from_version=version,
        to_version=version + 1,
        reason=reason,
        done=list(snapshot.plan_progress.merged),
        plan=planned.plan,
        usage=planned.usage,
    )
    await calls.append_to_ledger(run, [revised])
    return None
