"""AgentRunWorkflow: the durable runtime. Deterministic code owns every transition; models
only propose, and every side effect is an activity.

    prepare -> compile goal -> plan -> for each task in topological order:
        propose -> verify -> [await a person's approval] -> execute -> check
        -> commit (git checkpoint + ledger) | reject (roll back + ledger + feedback)
        until the task's postconditions hold or a budget ends it
    -> accept (the goal's declared postconditions) -> RunResult

Long runs continue as new when Temporal suggests it, carrying their typed state (RunCarry).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities.execution import execute_tool
    from activities.ledger import append_ledger
    from activities.model_calls import compile_goal, draft_plan, plan, propose_action
    from activities.postconditions import check_postconditions
    from activities.step_records import record_step
    from activities.verification import verify_proposal
    from activities.workspace import prepare_workspace
    from agent import feedback
    from agent.budget import Spent, exhausted
    from agent.step_log import Outcome, StepLog
    from contracts import (
        ActionProposal,
        CheckPostconditionsInput,
        CompileGoalInput,
        DraftPlanInput,
        ExecuteToolInput,
        GoalSpec,
        Plan,
        PlanTask,
        Postcondition,
        PostconditionResult,
        PrepareWorkspaceInput,
        ProposeActionInput,
        RunProgress,
        RunRequest,
        RunResult,
        RunState,
        SandboxReport,
        ToolResult,
        Usage,
        Verdict,
        VerifyProposalInput,
    )
    from contracts.approval import ApprovalDecision, Approve, Deny, PendingApproval, proposal_digest
    from contracts.envelopes import AppendLedgerInput, RecordStepInput
    from contracts.errors import IllegalTransition
    from contracts.ledger import LedgerEntry
    from contracts.run import RunCarry
    from workflows import activity_options as options
    from workflows import visibility
    from workflows.ledger_entries import EntryMaker
    from workflows.outcome import PATCH_ID, not_completed
    from workflows.state_machine import StateMachine, as_run_failure

S = RunState
In = TypeVar("In")
Out = TypeVar("Out")


class _RunEnded(Exception):
    """Ends the run from inside a task; the state machine already holds the outcome."""


@workflow.defn
class AgentRunWorkflow:
    def __init__(self) -> None:
        self._fsm = StateMachine()
        self._log = StepLog()
        self._step = 0
        self._task_id: str | None = None
        self._usage = Usage()
        self._wasted = Usage()
        self._task_usage = Usage()
        self._workspace = ""
        self._checkpoint = ""
        self._started_at: datetime | None = None
        self._task_started_at: datetime | None = None
        # Time spent waiting for a person: not charged to the wall-time budgets.
        self._waited_s = 0.0
        self._task_waited_s = 0.0
        self._pending: PendingApproval | None = None
        self._decision: ApprovalDecision | None = None
        self._approvals: list[ApprovalDecision] = []
        self._generation = 1
        self._world_id = ""
        self._sandbox: SandboxReport | None = None

    # --- what a person sees and does ---------------------------------------------------------

    @workflow.query
    def progress(self, since: int = 0) -> RunProgress:
        """The current state and step, and the steps recorded from index `since` on."""
        return RunProgress(
            state=self._fsm.state,
            step=self._step,
            task_id=self._task_id,
            steps=self._log.steps[since:],
            checkpoint=self._checkpoint,
            pending_approval=self._pending,
            usage=self._usage,
            sandbox=self._sandbox,
        )

    @workflow.update
    async def approve(self, decision: Approve) -> ApprovalDecision:
        pending = self._awaited()
        self._decision = ApprovalDecision(
            step=pending.step,
            approved=True,
            approver=decision.approver,
            arguments_sha256=decision.arguments_sha256,
            decided_at=workflow.now(),
            expires_at=decision.expires_at,
        )
        return self._decision

    @approve.validator
    def _check_approval(self, decision: Approve) -> None:
        # A refused update is never written to history: the run's state stays as it was.
        pending = self._awaited()
        if decision.arguments_sha256 != pending.arguments_sha256:
            raise ValueError(
                f"this approval is for arguments sha256 {decision.arguments_sha256[:12]}..., but the pending "
                f"proposal's is {pending.arguments_sha256[:12]}...: approve what `pending` shows"
            )
        if decision.expires_at is not None and decision.expires_at <= workflow.now():
            raise ValueError(f"this approval expired at {decision.expires_at.isoformat()}")

    @workflow.update
    async def deny(self, decision: Deny) -> ApprovalDecision:
        pending = self._awaited()
        self._decision = ApprovalDecision(
            step=pending.step,
            approved=False,
            approver=decision.approver,
            arguments_sha256=pending.arguments_sha256,
            reason=decision.reason,
            decided_at=workflow.now(),
        )
        return self._decision

    @deny.validator
    def _check_denial(self, decision: Deny) -> None:
        self._awaited()

    def _take_decision(self) -> ApprovalDecision:
        decision, self._decision = self._decision, None
        if decision is None:
            raise as_run_failure(IllegalTransition(self._fsm.state, "a decision nobody made"))
        return decision

    def _awaited(self) -> PendingApproval:
        if self._pending is None or self._decision is not None or self._fsm.state != S.AWAITING_APPROVAL:
            raise ValueError(f"the run is not waiting for an approval (it is {self._fsm.state})")
        return self._pending

    # --- the run ----------------------------------------------------------------------------

    @workflow.run
    async def run(self, request: RunRequest) -> RunResult:
        entries = EntryMaker(workflow.info().workflow_id)
        self._world_id = request.world_id
        acceptance: PostconditionResult | None = None
        reason = ""
        goal_spec: GoalSpec | None = None
        ordered: list[PlanTask] = []
        try:
            if request.resume is not None:
                goal_spec, first_task = self._restore(request.resume)
                ordered = request.resume.plan.topological_order()
            else:
                goal_spec, ordered = await self._start(request, entries)
                first_task = 0
            for index in range(first_task, len(ordered)):
                await self._run_task(request, entries, goal_spec, ordered, index, resumed=index == first_task)

            self._move(S.ACCEPTING)
            self._task_id = None
            acceptance = await self._check(goal_spec.acceptance, "check the goal's acceptance")
            if not acceptance.passed:
                reason = "acceptance failed: " + "; ".join(f.description for f in acceptance.failures())
            self._move(S.COMPLETED if acceptance.passed else S.FAILED)
        except _RunEnded as ended:
            reason = str(ended)
        except ActivityError as error:
            # An activity out of retries, or failed for a reason retrying cannot fix.
            reason = f"{error.activity_type or 'an activity'} failed: {_cause(error)}"
            self._move(S.FAILED)

        result = RunResult(
            run_id=request.run_id,
            runtime=request.runtime,
            task_id=request.task_id,
            outcome=self._fsm.state,
            reason=reason,
            workspace=self._workspace,
            plan=[task.id for task in ordered],
            steps=self._log.steps,
            acceptance=acceptance,
            usage=self._usage,
            wasted=self._wasted,
            wall_time_s=self._elapsed_s(self._started_at),
            checkpoint=self._checkpoint,
            approvals=self._approvals,
            generations=self._generation,
            sandbox=self._sandbox,
        )
        if self._workspace:
            finished = entries.entry(
                "run_finished", workflow.now(), outcome=result.outcome.value, reason=reason, usage=result.usage
            )
            await self._ledger([finished])
        if request.search_attributes:
            workflow.upsert_search_attributes([visibility.OUTCOME.value_set(self._fsm.state.value)])
        if result.outcome != S.COMPLETED and workflow.patched(PATCH_ID):
            # Shown as Failed in the Web UI's list, not as a success; the result goes with it.
            raise not_completed(result)
        return result

    async def _start(self, request: RunRequest, entries: EntryMaker) -> tuple[GoalSpec, list[PlanTask]]:
        self._started_at = workflow.now()
        self._move(S.PREPARING)
        prepared = PrepareWorkspaceInput(world_id=request.world_id, fixture_dir=request.fixture_dir)
        workspace = await self._call(prepare_workspace, prepared, options.PREPARE, "copy the fixture")
        self._workspace, self._checkpoint = workspace.path, workspace.checkpoint
        self._sandbox = workspace.sandbox

        self._move(S.COMPILING_GOAL)
        goal = CompileGoalInput(provider=request.provider, goal=request.goal, acceptance=request.acceptance)
        compiled = await self._call(compile_goal, goal, options.MODEL, "interpret the goal")
        self._usage += compiled.usage + compiled.failed_attempts
        self._wasted += compiled.failed_attempts

        self._move(S.PLANNING)
        planning = DraftPlanInput(provider=request.provider, goal_spec=compiled.goal_spec)
        # Runs started before the activity's rename schedule it under its old name.
        drafting = draft_plan if workflow.patched("draft-plan-activity") else plan
        planned = await self._call(drafting, planning, options.MODEL, "draft a plan")
        self._usage += planned.usage + planned.failed_attempts
        self._wasted += planned.failed_attempts
        now = workflow.now()
        await self._ledger(
            [
                entries.entry(
                    "run_started",
                    now,
                    task=request.task_id,
                    runtime=request.runtime,
                    goal=request.goal,
                    workspace=self._workspace,
                    checkpoint=self._checkpoint,
                    # Which model, which weights (a local file's sha256), which seed: no secret.
                    provider=request.provider,
                ),
                entries.entry("goal_compiled", now, goal_spec=compiled.goal_spec, usage=compiled.usage),
                entries.entry("plan_drafted", now, plan=planned.plan, usage=planned.usage),
            ]
        )
        return compiled.goal_spec, planned.plan.topological_order()

    async def _run_task(
        self,
        request: RunRequest,
        entries: EntryMaker,
        goal_spec: GoalSpec,
        ordered: list[PlanTask],
        index: int,
        resumed: bool,
    ) -> None:
        """Steps until the task's postconditions hold; raises _RunEnded when the run must stop."""
        task = ordered[index]
        self._task_id = task.id
        if not (resumed and request.resume is not None):
            self._log.start_task()
            self._task_usage = Usage()
            self._task_started_at = workflow.now()
            self._task_waited_s = 0.0
        task_limit = task.max_steps or request.budget.max_steps_per_task
        while True:
            if workflow.info().is_continue_as_new_suggested():
                await self._continue_as_new(request, goal_spec, ordered, index)
            run_spent = Spent(self._step, self._usage, self._elapsed_s(self._started_at) - self._waited_s)
            task_wall = self._elapsed_s(self._task_started_at) - self._task_waited_s
            task_spent = Spent(len(self._log.turns), self._task_usage, task_wall)
            if reason := exhausted(request.budget, run_spent, task_spent, task_limit):
                self._move(S.BUDGET_EXHAUSTED)
                raise _RunEnded(f"{reason} in task {task.id!r} after {self._step} steps")
            self._move(S.PROPOSING)
            self._step += 1
            asked = ProposeActionInput(
                provider=request.provider,
                goal=request.goal,
                task=task,
                history=self._log.turns,
                workspace=self._workspace,
                run_id=workflow.info().workflow_id,
                step=self._step,
            )
            proposed = await self._call(propose_action, asked, options.MODEL, f"step {self._step}: propose ({task.id})")
            spent = proposed.usage + proposed.failed_attempts
            self._usage += spent
            self._task_usage += spent
            self._wasted += proposed.failed_attempts
            proposal = proposed.proposal
            if proposal is None:
                await self._close(entries, task, "rejected", None, spent, f"unusable answer: {proposed.invalid_output}")
            elif proposal.kind == "give_up":
                self._move(S.FAILED)
                await self._close(entries, task, "rejected", proposal, spent, "the model gave up", moved=True)
                raise _RunEnded(f"the model gave up on task {task.id!r}: {proposal.thought}")
            elif proposal.kind == "finish":
                if await self._finish_holds(entries, task, proposal, spent):
                    return
            elif await self._tool_step(request, entries, task, proposal, spent):
                return

    async def _finish_holds(self, entries: EntryMaker, task: PlanTask, proposal: ActionProposal, usage: Usage) -> bool:
        """A claim of "done" is checked, never believed."""
        self._move(S.CHECKING)
        check = await self._check(task.postconditions, f"step {self._step}: check the claim that {task.id} is done")
        if not check.passed:
            said = "claimed done, but " + feedback.after_check(check)
            await self._close(entries, task, "rejected", proposal, usage, said, check=check)
            return False
        await self._close(entries, task, "committed", proposal, usage, "done", check=check)
        return True

    async def _tool_step(
        self, request: RunRequest, entries: EntryMaker, task: PlanTask, proposal: ActionProposal, usage: Usage
    ) -> bool:
        """Verify, [await approval], execute, check. True when the task's postconditions hold."""
        self._move(S.VERIFYING)
        verdict = await workflow.execute_local_activity(
            verify_proposal,
            VerifyProposalInput(workspace=self._workspace, proposal=proposal, profile=request.profile),
            start_to_close_timeout=options.VERIFY.start_to_close,
            retry_policy=options.VERIFY.retry,
            summary=f"step {self._step}: verify {proposal.describe()}",
        )
        if verdict.decision == "reject":
            await self._close(entries, task, "rejected", proposal, usage, feedback.after_verdict(verdict), verdict)
            return False
        if verdict.decision == "needs_approval":
            decision = await self._await_approval(entries, task, proposal, verdict)
            if not decision.approved:
                said = f"denied by {decision.approver}: {decision.reason}"
                await self._close(entries, task, "rejected", proposal, usage, said, verdict)
                return False

        self._move(S.EXECUTING)
        execution = ExecuteToolInput(
            workspace=self._workspace,
            proposal=proposal,
            run_id=workflow.info().workflow_id,
            step=self._step,
            world_id=request.world_id,
            checkpoint=self._checkpoint,
        )
        result = await self._call(execute_tool, execution, options.EXECUTE, f"step {self._step}: {proposal.describe()}")
        if not result.ok:
            said = feedback.after_tool(result, None)
            await self._close(entries, task, "rejected", proposal, usage, said, verdict, result)
            return False

        self._move(S.CHECKING)
        # A task without postconditions ends only on a checked "finish".
        check = None
        if task.postconditions:
            check = await self._check(task.postconditions, f"step {self._step}: check {task.id}")
        said = feedback.after_tool(result, check)
        await self._close(entries, task, "committed", proposal, usage, said, verdict, result, check)
        return check is not None and check.passed

    async def _await_approval(
        self, entries: EntryMaker, task: PlanTask, proposal: ActionProposal, verdict: Verdict
    ) -> ApprovalDecision:
        """Wait, for days if need be, holding no activity and no worker slot."""
        self._move(S.AWAITING_APPROVAL)
        requested_at = workflow.now()
        self._pending = PendingApproval(
            step=self._step,
            task_id=task.id,
            proposal=proposal,
            arguments_sha256=proposal_digest(proposal),
            reason_code=verdict.reason_code,
            message=verdict.message,
            requested_at=requested_at,
        )
        await self._ledger([entries.entry("approval_requested", requested_at, self._step, pending=self._pending)])
        await workflow.wait_condition(lambda: self._decision is not None)
        decision = self._take_decision()
        waited = (workflow.now() - requested_at).total_seconds()
        self._waited_s += waited
        self._task_waited_s += waited
        self._pending = None
        self._approvals.append(decision)
        await self._ledger([entries.entry("approval_decided", decision.decided_at, self._step, decision=decision)])
        return decision

    async def _close(
        self,
        entries: EntryMaker,
        task: PlanTask,
        outcome: Outcome,
        proposal: ActionProposal | None,
        usage: Usage,
        said: str,
        verdict: Verdict | None = None,
        result: ToolResult | None = None,
        check: PostconditionResult | None = None,
        moved: bool = False,
    ) -> None:
        """End a step: commit (checkpoint) or reject (roll back), record it in the ledger and in
        the model's turns."""
        if not moved:
            self._move(S.COMMITTED if outcome == "committed" else S.REJECTED)
        if outcome == "rejected":
            self._wasted += usage
        now = workflow.now()
        step = self._step
        events = [entries.entry("proposal", now, step, task=task.id, proposal=proposal, usage=usage)]
        if verdict is not None:
            events.append(entries.entry("verdict", now, step, verdict=verdict))
        if result is not None:
            events.append(entries.entry("tool_result", now, step, tool=result.tool, result=result))
        if check is not None:
            events.append(entries.entry("postconditions", now, step, passed=check.passed, result=check))
        recorded = await workflow.execute_local_activity(
            record_step,
            RecordStepInput(
                run_id=workflow.info().workflow_id,
                workspace=self._workspace,
                step=step,
                action="commit" if outcome == "committed" else "rollback",
                checkpoint=self._checkpoint,
                message=proposal.describe() if proposal else "unusable answer",
                entries=events,
            ),
            start_to_close_timeout=options.RECORD.start_to_close,
            retry_policy=options.RECORD.retry,
            summary=f"step {step}: {'checkpoint' if outcome == 'committed' else 'roll back'} and record",
        )
        self._checkpoint = recorded.checkpoint
        self._log.record(
            step,
            task.id,
            outcome,
            proposal,
            usage=usage,
            said=said,
            verdict=verdict,
            result=result.summary() if result else "",
            postconditions=check.summary() if check else "",
            fault_injected=result is not None and result.fault_injected,
        )

    async def _continue_as_new(
        self, request: RunRequest, goal_spec: GoalSpec, ordered: list[PlanTask], index: int
    ) -> None:
        await workflow.wait_condition(workflow.all_handlers_finished)
        carry = RunCarry(
            generation=self._generation + 1,
            state=self._fsm.state,
            workspace=self._workspace,
            checkpoint=self._checkpoint,
            goal_spec=goal_spec,
            plan=Plan(tasks=ordered),
            task_index=index,
            turns=self._log.turns,
            step=self._step,
            usage=self._usage,
            task_usage=self._task_usage,
            started_at=self._started_at or workflow.now(),
            task_started_at=self._task_started_at or workflow.now(),
            waited_s=self._waited_s,
            task_waited_s=self._task_waited_s,
            steps=self._log.steps,
            approvals=self._approvals,
            wasted=self._wasted,
            sandbox=self._sandbox,
        )
        workflow.continue_as_new(request.model_copy(update={"resume": carry}))

    def _restore(self, carry: RunCarry) -> tuple[GoalSpec, int]:
        self._generation = carry.generation
        self._workspace, self._checkpoint = carry.workspace, carry.checkpoint
        self._step, self._usage, self._task_usage = carry.step, carry.usage, carry.task_usage
        self._started_at, self._task_started_at = carry.started_at, carry.task_started_at
        self._waited_s, self._task_waited_s = carry.waited_s, carry.task_waited_s
        self._log = StepLog(steps=list(carry.steps), turns=list(carry.turns))
        self._approvals = list(carry.approvals)
        self._wasted = carry.wasted
        self._sandbox = carry.sandbox
        # A new generation starts where the last one stopped: between two steps of a task.
        self._fsm = StateMachine(carry.state)
        return carry.goal_spec, carry.task_index

    async def _ledger(self, events: list[LedgerEntry]) -> None:
        await workflow.execute_local_activity(
            append_ledger,
            AppendLedgerInput(run_id=workflow.info().workflow_id, entries=events),
            start_to_close_timeout=options.RECORD.start_to_close,
            retry_policy=options.RECORD.retry,
            summary=f"ledger: {', '.join(event.type for event in events)}",
        )

    async def _check(self, postconditions: list[Postcondition], summary: str) -> PostconditionResult:
        checking = CheckPostconditionsInput(
            workspace=self._workspace, postconditions=postconditions, world_id=self._world_id
        )
        return await self._call(check_postconditions, checking, options.CHECK, summary)

    async def _call(
        self, fn: Callable[[In], Awaitable[Out]], arg: In, opts: options.ActivityOptions, summary: str
    ) -> Out:
        return await workflow.execute_activity(
            fn,
            arg,
            start_to_close_timeout=opts.start_to_close,
            heartbeat_timeout=opts.heartbeat,
            retry_policy=opts.retry,
            summary=summary,
        )

    def _elapsed_s(self, since: datetime | None) -> float:
        return (workflow.now() - since).total_seconds() if since else 0.0

    def _move(self, target: RunState) -> None:
        try:
            self._fsm.advance(target)
        except IllegalTransition as error:
            raise as_run_failure(error) from None
        where = f" · task {self._task_id}" if self._task_id else ""
        workflow.set_current_details(f"**{target}** · step {self._step}{where}")


def _cause(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type:
        return f"{cause.type}: {cause.message}"
    return str(cause or error)
