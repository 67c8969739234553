"""AgentRunWorkflow: the durable runtime. Deterministic code owns every transition; models
only propose, and every side effect is an activity.

    compile goal -> plan -> for each task in topological order:
        propose -> verify -> execute -> check postconditions -> commit | reject (+ feedback)
        until the task's postconditions hold or its step budget ends
    -> accept (the goal's declared postconditions) -> RunResult
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Literal, TypeVar

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
        StepRecord,
        Turn,
        Usage,
        Verdict,
        VerifyInput,
    )
    from contracts import visibility
    from workflows import activity_options as options
    from workflows import feedback
    from workflows.state_machine import StateMachine

S = RunState
In = TypeVar("In")
Out = TypeVar("Out")


class _RunEnded(Exception):
    """Ends the run from inside a task loop; the state machine already holds the outcome."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@workflow.defn
class AgentRunWorkflow:
    def __init__(self) -> None:
        self._fsm = StateMachine()
        self._step = 0
        self._task_id: str | None = None
        self._steps: list[StepRecord] = []
        self._usage = Usage()
        self._workspace = ""

    @workflow.query
    def progress(self, since: int = 0) -> RunProgress:
        """The current state and step, and the steps recorded from index `since` on."""
        return RunProgress(
            state=self._fsm.state, step=self._step, task_id=self._task_id, steps=self._steps[since:]
        )

    @workflow.run
    async def run(self, request: RunRequest) -> RunResult:
        started = workflow.now()
        plan_ids: list[str] = []
        acceptance: PostconditionResult | None = None
        reason = ""
        try:
            self._move(S.PREPARING)
            workspace = await self._activity(
                prepare_workspace,
                PrepareWorkspaceInput(run_id=request.run_id, fixture_dir=request.fixture_dir),
                options.PREPARE,
                "copy the task's fixture into a fresh workspace",
            )
            self._workspace = workspace.path

            self._move(S.COMPILING_GOAL)
            compiled = await self._activity(
                compile_goal,
                CompileGoalRequest(provider=request.provider, goal=request.goal, acceptance=request.acceptance),
                options.MODEL,
                "interpret the goal",
            )
            self._usage += compiled.usage

            self._move(S.PLANNING)
            planned = await self._activity(
                plan,
                PlanRequest(provider=request.provider, goal_spec=compiled.goal_spec),
                options.MODEL,
                "draft a plan",
            )
            self._usage += planned.usage
            ordered = planned.plan.topological_order()
            plan_ids = [task.id for task in ordered]

            for task in ordered:
                await self._run_task(request, task)

            self._move(S.ACCEPTING)
            self._task_id = None
            acceptance = await self._check(compiled.goal_spec.acceptance, "check the goal's acceptance postconditions")
            if acceptance.passed:
                self._move(S.COMPLETED)
            else:
                reason = "acceptance failed: " + "; ".join(f.description for f in acceptance.failures())
                self._move(S.FAILED)
        except _RunEnded as ended:
            reason = ended.reason
        except ActivityError as error:
            # An activity out of retries, or one that failed for a reason retrying cannot fix.
            reason = f"{_activity_name(error)} failed: {_cause(error)}"
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
            steps=self._steps,
            acceptance=acceptance,
            usage=self._usage,
            wall_time_s=(workflow.now() - started).total_seconds(),
        )

    async def _run_task(self, request: RunRequest, task: PlanTask) -> None:
        """Steps until the task's postconditions hold; raises _RunEnded when the run must stop."""
        budget = request.budget
        max_task_steps = task.max_steps or budget.max_steps_per_task
        self._task_id = task.id
        history: list[Turn] = []
        while True:
            if self._step >= budget.max_steps or len(history) >= max_task_steps:
                limit = f"run limit of {budget.max_steps}" if self._step >= budget.max_steps else (
                    f"task limit of {max_task_steps}"
                )
                self._move(S.BUDGET_EXHAUSTED)
                raise _RunEnded(f"step budget exhausted in task {task.id!r} ({limit} steps)")
            self._move(S.PROPOSING)
            self._step += 1
            proposed = await self._activity(
                propose_action,
                ProposalRequest(provider=request.provider, goal=request.goal, task=task, history=history),
                options.MODEL,
                f"step {self._step}: propose an action for {task.id}",
            )
            self._usage += proposed.usage
            proposal = proposed.proposal
            if proposal is None:
                self._reject(history, task, None, None, f"unusable answer: {proposed.invalid_output}", proposed.usage)
                continue
            if proposal.kind == "give_up":
                self._record(history, task, "rejected", proposal, None, reason="the model gave up", usage=proposed.usage)
                self._move(S.FAILED)
                raise _RunEnded(f"the model gave up on task {task.id!r}: {proposal.thought}")
            if proposal.kind == "finish":
                if await self._finish_holds(history, task, proposal, proposed.usage):
                    return
                continue
            if await self._tool_step(history, task, proposal, proposed.usage):
                return

    async def _finish_holds(self, history: list[Turn], task: PlanTask, proposal: ActionProposal, usage: Usage) -> bool:
        """A claim of "done" is checked, never believed."""
        self._move(S.CHECKING)
        check = await self._check(task.postconditions, f"step {self._step}: check the claim that {task.id} is done")
        if not check.passed:
            self._reject(history, task, proposal, None, "claimed done, but " + feedback.after_check(check), usage)
            return False
        self._move(S.COMMITTED)
        self._record(history, task, "committed", proposal, None, postconditions=check.summary(), usage=usage)
        return True

    async def _tool_step(self, history: list[Turn], task: PlanTask, proposal: ActionProposal, usage: Usage) -> bool:
        """Verify, execute, check. True when the task's postconditions hold afterwards."""
        self._move(S.VERIFYING)
        verdict = await workflow.execute_local_activity(
            verify_proposal,
            VerifyInput(workspace=self._workspace, proposal=proposal),
            start_to_close_timeout=options.VERIFY.start_to_close,
            retry_policy=options.VERIFY.retry,
            summary=f"step {self._step}: verify {proposal.describe()}",
        )
        if not verdict.allowed:
            self._reject(history, task, proposal, verdict, f"rejected by the verifier ({verdict.reason_code}): {verdict.message}", usage)
            return False

        self._move(S.EXECUTING)
        result = await self._activity(
            execute_tool,
            ExecuteToolInput(workspace=self._workspace, proposal=proposal),
            options.EXECUTE,
            f"step {self._step}: {proposal.describe()}",
        )
        if not result.ok:
            self._reject(history, task, proposal, verdict, feedback.after_tool(result, None), usage, result.summary())
            return False

        self._move(S.CHECKING)
        # A task with no postconditions ends only on a checked "finish".
        check = await self._check(task.postconditions, f"step {self._step}: check {task.id}") if task.postconditions else None
        self._move(S.COMMITTED)
        self._record(
            history,
            task,
            "committed",
            proposal,
            verdict,
            result=result.summary(),
            postconditions=check.summary() if check else "",
            usage=usage,
            said=feedback.after_tool(result, check),
        )
        return check is not None and check.passed

    def _reject(
        self,
        history: list[Turn],
        task: PlanTask,
        proposal: ActionProposal | None,
        verdict: Verdict | None,
        reason: str,
        usage: Usage,
        result: str = "",
    ) -> None:
        self._move(S.REJECTED)
        self._record(history, task, "rejected", proposal, verdict, result=result, reason=reason, usage=usage)

    def _record(
        self,
        history: list[Turn],
        task: PlanTask,
        outcome: Literal["committed", "rejected"],
        proposal: ActionProposal | None,
        verdict: Verdict | None,
        *,
        result: str = "",
        postconditions: str = "",
        reason: str = "",
        usage: Usage,
        said: str | None = None,
    ) -> None:
        self._steps.append(
            StepRecord(
                step=self._step,
                task_id=task.id,
                outcome=outcome,
                proposal=proposal,
                verdict=verdict,
                result=result,
                postconditions=postconditions,
                reason=reason,
                usage=usage,
            )
        )
        history.append(Turn(step=self._step, proposal=proposal, outcome=outcome, feedback=said or reason))

    async def _check(self, postconditions: list[Postcondition], summary: str) -> PostconditionResult:
        return await self._activity(
            check_postconditions,
            CheckPostconditionsInput(workspace=self._workspace, postconditions=postconditions),
            options.CHECK,
            summary,
        )

    async def _activity(
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


def _activity_name(error: ActivityError) -> str:
    return error.activity_type or "an activity"


def _cause(error: ActivityError) -> str:
    cause = error.cause
    if isinstance(cause, ApplicationError) and cause.type:
        return f"{cause.type}: {cause.message}"
    return str(cause or error)
