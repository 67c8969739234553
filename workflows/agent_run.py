"""AgentRunWorkflow: the durable runtime. Deterministic code owns every transition; models
only propose, and every side effect is an activity.

    prepare -> compile goal -> draft a plan -> for each subtask in topological order:
        propose -> verify -> [await a person's approval] -> execute -> check
        -> commit (git checkpoint + ledger) | reject (roll back + ledger + feedback)
        until the subtask's postconditions hold or a budget ends it   (workflows.subtask_steps)
    -> accept (the goal's declared postconditions) -> RunResult

With `RunRequest.parallel_subtasks`, the plan's independent subtasks run at once as child runs
of this same workflow (workflows.subtasks), each in its own git worktree, and are merged back;
a child is such a run with `RunRequest.subtask` set (workflows.subtask_run).

The run's state is one RunSnapshot (workflows.run): the `progress` query returns it, and a
long run continues as new carrying it whole.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from contracts import (
        CompileGoalInput,
        CompileGoalResult,
        DraftPlanInput,
        DraftPlanResult,
        Plan,
        PostconditionResult,
        PrepareWorkspaceInput,
        PrepareWorkspaceResult,
        RunRequest,
        RunResult,
        RunSnapshot,
        RunState,
    )
    from contracts import activity_names as named
    from contracts.approval import ApprovalDecision, Approve, Deny, PendingApproval
    from workflows import activity_options as options
    from workflows import calls, visibility
    from workflows.approval_wait import awaited
    from workflows.fork_start import start_fork
    from workflows.ledger_entries import about_run
    from workflows.outcome import not_completed
    from workflows.run import Run
    from workflows.subtask_run import run_subtask
    from workflows.subtask_steps import run_subtask_steps
    from workflows.subtasks import run_in_parallel

S = RunState


@workflow.defn
class AgentRunWorkflow:
    @workflow.init
    def __init__(self, request: RunRequest) -> None:
        self._run = Run.begin(request)

    # --- what a person sees and does ---------------------------------------------------------

    @workflow.query
    def progress(self, since: int = 0) -> RunSnapshot:
        """The run's state, with the steps recorded from index `since` on."""
        snapshot = self._run.snapshot
        return snapshot.model_copy(update={"steps": snapshot.steps[since:]})

    @workflow.query
    def pending_approval(self) -> PendingApproval | None:
        """What the run waits for a person to decide, if anything: a few hundred bytes, for a
        caller that asks often (the experiment's approver), where `progress` is the whole state."""
        return self._run.snapshot.pending_approval

    @workflow.update
    async def approve(self, decision: Approve) -> ApprovalDecision:
        pending = awaited(self._run)
        self._run.decision = ApprovalDecision(
            step=pending.step,
            approved=True,
            approver=decision.approver,
            arguments_sha256=decision.arguments_sha256,
            decided_at=workflow.now(),
            expires_at=decision.expires_at,
        )
        return self._run.decision

    @approve.validator
    def _check_approval(self, decision: Approve) -> None:
        # A refused update is never written to history: the run's state stays as it was.
        pending = awaited(self._run)
        if decision.arguments_sha256 != pending.arguments_sha256:
            raise ValueError(
                f"this approval is for arguments sha256 {decision.arguments_sha256[:12]}..., but the pending "
                f"proposal's is {pending.arguments_sha256[:12]}...: approve what `pending` shows"
            )
        if decision.expires_at is not None and decision.expires_at <= workflow.now():
            raise ValueError(f"this approval expired at {decision.expires_at.isoformat()}")

    @workflow.update
    async def deny(self, decision: Deny) -> ApprovalDecision:
        pending = awaited(self._run)
        self._run.decision = ApprovalDecision(
            step=pending.step,
            approved=False,
            approver=decision.approver,
            arguments_sha256=pending.arguments_sha256,
            reason=decision.reason,
            decided_at=workflow.now(),
        )
        return self._run.decision

    @deny.validator
    def _check_denial(self, decision: Deny) -> None:
        awaited(self._run)

    # --- the run ----------------------------------------------------------------------------

    @workflow.run
    async def run(self, request: RunRequest) -> RunResult:
        run = self._run
        snapshot = run.snapshot
        acceptance: PostconditionResult | None = None
        reason = ""
        try:
            if request.fork is not None and not snapshot.workspace:
                await start_fork(run)
            if request.subtask is not None:
                reason = await run_subtask(run)
            elif request.parallel_subtasks:
                if request.resume is None:
                    await _start(run)
                if (ended := await run_in_parallel(run)) is not None:
                    reason = ended
                else:
                    acceptance, reason = await _accept(run)
            else:
                acceptance, reason = await _one_subtask_at_a_time(run)
        except ActivityError as error:
            # An activity out of retries, or failed for a reason retrying cannot fix.
            reason = f"{error.activity_type or 'an activity'} failed: {_cause(error)}"
            run.move(S.FAILED)
        return await _finish(run, acceptance, reason)


async def _one_subtask_at_a_time(run: Run) -> tuple[PostconditionResult | None, str]:
    """The plan's subtasks one after the other, in its topological order, in the run's workspace."""
    request, snapshot = run.request, run.snapshot
    first = snapshot.subtask.index if request.resume is not None else 0
    if request.resume is None:
        await _start(run)
    subtasks = snapshot.plan.subtasks if snapshot.plan else []
    for index in range(first, len(subtasks)):
        resumed = request.resume is not None and index == first
        if (ended := await run_subtask_steps(run, subtasks[index], index, resumed=resumed)) is not None:
            return None, ended
    return await _accept(run)


async def _start(run: Run) -> None:
    """Workspace, goal and plan; the run's first ledger events."""
    request, snapshot = run.request, run.snapshot
    snapshot.started_at = workflow.now()
    run.move(S.PREPARING)
    prepared = PrepareWorkspaceInput(world_id=request.world_id, fixture_dir=request.fixture_dir)
    workspace = await calls.call(
        named.PREPARE_WORKSPACE, prepared, PrepareWorkspaceResult, options.PREPARE, "copy the fixture"
    )
    snapshot.workspace, snapshot.checkpoint, snapshot.sandbox = workspace.path, workspace.checkpoint, workspace.sandbox
    snapshot.workspace_files = workspace.files

    run.move(S.COMPILING_GOAL)
    goal = CompileGoalInput(
        provider=request.provider, goal=request.goal, acceptance=request.acceptance, tools=request.tools
    )
    model = options.for_model(request.retries)
    compiled = await calls.call(named.COMPILE_GOAL, goal, CompileGoalResult, model, "interpret the goal")
    snapshot.usage += compiled.usage + compiled.failed_attempts
    snapshot.wasted += compiled.failed_attempts
    snapshot.goal_spec = compiled.goal_spec

    run.move(S.PLANNING)
    planning = DraftPlanInput(provider=request.provider, goal_spec=compiled.goal_spec, tools=request.tools)
    planned = await calls.call(named.DRAFT_PLAN, planning, DraftPlanResult, model, "draft a plan")
    snapshot.usage += planned.usage + planned.failed_attempts
    snapshot.wasted += planned.failed_attempts
    snapshot.plan = Plan(subtasks=planned.plan.topological_order())
    now = workflow.now()
    entry = run.entries.entry
    await calls.append_to_ledger(
        run,
        [
            entry("run_started", now, **about_run(request, snapshot), goal=request.goal),
            entry("goal_compiled", now, goal_spec=compiled.goal_spec, usage=compiled.usage),
            entry("plan_drafted", now, plan=planned.plan, usage=planned.usage),
        ],
    )


async def _accept(run: Run) -> tuple[PostconditionResult, str]:
    """The goal's declared postconditions decide between COMPLETED and FAILED."""
    await calls.flush(run)
    run.move(S.ACCEPTING)
    run.snapshot.subtask.id = None
    goal_spec = run.snapshot.goal_spec
    acceptance = await calls.check(run, goal_spec.acceptance if goal_spec else [], "check the goal's acceptance")
    reason = (
        "" if acceptance.passed else "acceptance failed: " + "; ".join(f.description for f in acceptance.failures())
    )
    run.move(S.COMPLETED if acceptance.passed else S.FAILED)
    return acceptance, reason


async def _finish(run: Run, acceptance: PostconditionResult | None, reason: str) -> RunResult:
    request, snapshot = run.request, run.snapshot
    try:
        # The last step's record, if it waits (the run ended between two steps: a budget, or an
        # activity out of retries). The run has already ended: a record that fails is said.
        await calls.flush(run)
    except ActivityError as error:
        reason = "; ".join(filter(None, [reason, f"the last step's record was not written: {_cause(error)}"]))
    result = RunResult(
        run_id=request.run_id,
        runtime=request.runtime,
        task_id=request.task_id,
        outcome=run.fsm.state,
        reason=reason,
        workspace=snapshot.workspace,
        plan=[subtask.id for subtask in snapshot.plan.subtasks] if snapshot.plan else [],
        plan_depends_on={subtask.id: subtask.depends_on for subtask in snapshot.plan.subtasks} if snapshot.plan else {},
        steps=snapshot.steps,
        acceptance=acceptance,
        usage=snapshot.usage,
        wasted=snapshot.wasted,
        wall_time_s=run.elapsed_s(snapshot.started_at),
        checkpoint=snapshot.checkpoint,
        approvals=snapshot.approvals,
        effects=snapshot.effects,
        generations=snapshot.generation,
        sandbox=snapshot.sandbox,
        disk=run.disk(),
    )
    if snapshot.workspace:
        finished = run.entries.entry(
            "run_finished", workflow.now(), outcome=result.outcome.value, reason=reason, usage=result.usage
        )
        await calls.append_to_ledger(run, [finished])
    if request.search_attributes:
        workflow.upsert_search_attributes([visibility.OUTCOME.value_set(run.fsm.state.value)])
    if result.outcome != S.COMPLETED:
        # Shown as Failed in the Web UI's list, not as a success; the result goes with it.
        raise not_completed(result)
    return result


def _cause(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type:
        return f"{cause.type}: {cause.message}"
    return str(cause or error)
