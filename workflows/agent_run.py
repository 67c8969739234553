"""AgentRunWorkflow: the durable runtime. Deterministic code owns every transition; models
only propose, and every side effect is an activity.

    compile goal -> plan -> for each task in topological order:
        propose -> verify -> execute -> check postconditions -> commit | reject (+ feedback)
        until the task's postconditions hold or a step budget ends
    -> accept (the goal's declared postconditions) -> RunResult
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from temporalio import workflow
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from activities import (
        check_postconditions,
        compile_goal,
        execute_tool,
        plan,
        prepare_workspace,
        propose_action,
        verify_proposal,
    )
    from contracts import (
        ActionProposal,
        CheckPostconditionsInput,
        CompileGoalRequest,
        ExecuteToolInput,
        PlanRequest,
        PlanTask,
        Postcondition,
        PostconditionResult,
        PrepareWorkspaceInput,
        ProposalRequest,
        RunProgress,
        RunRequest,
        RunResult,
        RunState,
        Usage,
        Verdict,
        VerifyInput,
        visibility,
    )
    from workflows import activity_options as options
    from workflows import feedback
    from workflows.state_machine import StateMachine
    from workflows.step_log import StepLog

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
        self._workspace = ""

    @workflow.query
    def progress(self, since: int = 0) -> RunProgress:
        """The current state and step, and the steps recorded from index `since` on."""
        return RunProgress(state=self._fsm.state, step=self._step, task_id=self._task_id, steps=self._log.steps[since:])

    @workflow.run
    async def run(self, request: RunRequest) -> RunResult:
        started = workflow.now()
        plan_ids: list[str] = []
        acceptance: PostconditionResult | None = None
        reason = ""
        try:
            self._move(S.PREPARING)
            prepared = PrepareWorkspaceInput(run_id=request.run_id, fixture_dir=request.fixture_dir)
            workspace = await self._call(prepare_workspace, prepared, options.PREPARE, "copy the fixture")
            self._workspace = workspace.path

            self._move(S.COMPILING_GOAL)
            goal = CompileGoalRequest(provider=request.provider, goal=request.goal, acceptance=request.acceptance)
            compiled = await self._call(compile_goal, goal, options.MODEL, "interpret the goal")
            self._usage += compiled.usage

            self._move(S.PLANNING)
            planning = PlanRequest(provider=request.provider, goal_spec=compiled.goal_spec)
            planned = await self._call(plan, planning, options.MODEL, "draft a plan")
            self._usage += planned.usage
            ordered = planned.plan.topological_order()
            plan_ids = [task.id for task in ordered]

            for task in ordered:
                await self._run_task(request, task)

            self._move(S.ACCEPTING)
            self._task_id = None
            acceptance = await self._check(compiled.goal_spec.acceptance, "check the goal's acceptance")
            if not acceptance.passed:
                reason = "acceptance failed: " + "; ".join(f.description for f in acceptance.failures())
            self._move(S.COMPLETED if acceptance.passed else S.FAILED)
        except _RunEnded as ended:
            reason = str(ended)
        except ActivityError as error:
            # An activity out of retries, or failed for a reason retrying cannot fix.
            reason = f"{error.activity_type or 'an activity'} failed: {_cause(error)}"
            self._move(S.FAILED)

        if request.search_attributes:
            workflow.upsert_search_attributes([visibility.OUTCOME.value_set(self._fsm.state.value)])
        return RunResult(
            run_id=request.run_id,
            runtime=request.runtime,
            task_id=request.task_id,
            outcome=self._fsm.state,
            reason=reason,
            workspace=self._workspace,
            plan=plan_ids,
            steps=self._log.steps,
            acceptance=acceptance,
            usage=self._usage,
            wall_time_s=(workflow.now() - started).total_seconds(),
        )

    async def _run_task(self, request: RunRequest, task: PlanTask) -> None:
        """Steps until the task's postconditions hold; raises _RunEnded when the run must stop."""
        budget = request.budget
        task_limit = task.max_steps or budget.max_steps_per_task
        self._task_id = task.id
        self._log.start_task()
        while True:
            if self._step >= budget.max_steps or len(self._log.turns) >= task_limit:
                spent = "the run's" if self._step >= budget.max_steps else "the task's"
                self._move(S.BUDGET_EXHAUSTED)
                raise _RunEnded(f"{spent} step budget ran out in task {task.id!r} after {self._step} steps")
            self._move(S.PROPOSING)
            self._step += 1
            asked = ProposalRequest(provider=request.provider, goal=request.goal, task=task, history=self._log.turns)
            proposed = await self._call(propose_action, asked, options.MODEL, f"step {self._step}: propose ({task.id})")
            self._usage += proposed.usage
            proposal, usage = proposed.proposal, proposed.usage
            if proposal is None:
                self._reject(task, None, usage, f"unusable answer: {proposed.invalid_output}")
            elif proposal.kind == "give_up":
                self._log.record(self._step, task.id, "rejected", proposal, usage=usage, said="the model gave up")
                self._move(S.FAILED)
                raise _RunEnded(f"the model gave up on task {task.id!r}: {proposal.thought}")
            elif proposal.kind == "finish":
                if await self._finish_holds(task, proposal, usage):
                    return
            elif await self._tool_step(request, task, proposal, usage):
                return

    async def _finish_holds(self, task: PlanTask, proposal: ActionProposal, usage: Usage) -> bool:
        """A claim of "done" is checked, never believed."""
        self._move(S.CHECKING)
        check = await self._check(task.postconditions, f"step {self._step}: check the claim that {task.id} is done")
        if not check.passed:
            self._reject(task, proposal, usage, "claimed done, but " + feedback.after_check(check))
            return False
        self._move(S.COMMITTED)
        self._log.record(
            self._step, task.id, "committed", proposal, usage=usage, said="done", postconditions=check.summary()
        )
        return True

    async def _tool_step(self, request: RunRequest, task: PlanTask, proposal: ActionProposal, usage: Usage) -> bool:
        """Verify, execute, check. True when the task's postconditions hold afterwards."""
        self._move(S.VERIFYING)
        verdict = await workflow.execute_local_activity(
            verify_proposal,
            VerifyInput(workspace=self._workspace, proposal=proposal, profile=request.profile),
            start_to_close_timeout=options.VERIFY.start_to_close,
            retry_policy=options.VERIFY.retry,
            summary=f"step {self._step}: verify {proposal.describe()}",
        )
        if not verdict.allowed:
            said = feedback.after_verdict(verdict)
            self._reject(task, proposal, usage, said, verdict=verdict)
            return False

        self._move(S.EXECUTING)
        execution = ExecuteToolInput(
            workspace=self._workspace, proposal=proposal, run_id=workflow.info().workflow_id, step=self._step
        )
        result = await self._call(execute_tool, execution, options.EXECUTE, f"step {self._step}: {proposal.describe()}")
        if not result.ok:
            self._reject(
                task, proposal, usage, feedback.after_tool(result, None), verdict=verdict, result=result.summary()
            )
            return False

        self._move(S.CHECKING)
        # A task without postconditions ends only on a checked "finish".
        check = None
        if task.postconditions:
            check = await self._check(task.postconditions, f"step {self._step}: check {task.id}")
        self._move(S.COMMITTED)
        self._log.record(
            self._step,
            task.id,
            "committed",
            proposal,
            usage=usage,
            said=feedback.after_tool(result, check),
            verdict=verdict,
            result=result.summary(),
            postconditions=check.summary() if check else "",
        )
        return check is not None and check.passed

    def _reject(
        self,
        task: PlanTask,
        proposal: ActionProposal | None,
        usage: Usage,
        said: str,
        verdict: Verdict | None = None,
        result: str = "",
    ) -> None:
        self._move(S.REJECTED)
        self._log.record(
            self._step, task.id, "rejected", proposal, usage=usage, said=said, verdict=verdict, result=result
        )

    async def _check(self, postconditions: list[Postcondition], summary: str) -> PostconditionResult:
        checking = CheckPostconditionsInput(workspace=self._workspace, postconditions=postconditions)
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

    def _move(self, target: RunState) -> None:
        self._fsm.advance(target)
        where = f" · task {self._task_id}" if self._task_id else ""
        workflow.set_current_details(f"**{target}** · step {self._step}{where}")


def _cause(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type:
        return f"{cause.type}: {cause.message}"
    return str(cause or error)
