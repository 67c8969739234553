"""A conventional tool loop in plain asyncio, the lab's point of comparison.

Its state is a conversation (every turn so far) held in memory; the model sees all of it and
decides when it is done. It calls the very functions the durable workers run as activities
(provider, tools, postcondition check), so a difference in results is the orchestration's.
What it lacks on purpose: a plan, a verifier before execution, checks between steps, durable
state. A crash loses the run. What it keeps, as the durable runtime does, is the host's safety:
the same sandbox, and the same host-disk budget per run; and a person's approval, asked with the
same rule (agent.approval_need) of an `approver` when it is given one. Given none, a call that
needs approval runs all the same and is recorded as an unapproved effect, which fails the run.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from agent import disk_use, feedback
from agent.budget import disk_exhausted, disk_left
from agent.dependencies import Dependencies
from agent.earlier_effects import earlier_effect, for_rule
from agent.execution import execute
from agent.model_calls import propose_action
from agent.postconditions import check
from agent.sandbox.private_tmp import selected_private_tmp
from agent.step_log import StepLog
from agent.tools.registry import READ_ONLY_TOOLS
from agent.verification import approval_needed, executed_call, verify
from agent.workspace import prepare_workspace
from baseline.approval import Approver, pending
from contracts import (
    ApprovalDecision,
    DiskUse,
    EarlierEffect,
    ExecutedCall,
    ExecuteToolInput,
    PrepareWorkspaceInput,
    ProposeActionInput,
    RetryBudget,
    RunRequest,
    RunResult,
    RunState,
    StepRecord,
    ToolResult,
    UnapprovedEffect,
    Usage,
)
from contracts.counts import counted
from contracts.errors import LabError, ProviderError, ProviderUnavailable

StepCallback = Callable[[StepRecord], None]
# Around each model call (its retries included): the step it proposes, and the run's usage so far.
ModelCallWatch = Callable[[int, Usage], contextlib.AbstractAsyncContextManager[object]]
In = TypeVar("In")
Out = TypeVar("Out")


class BaselineLoop:
    def __init__(
        self,
        deps: Dependencies,
        *,
        on_step: StepCallback | None = None,
        on_model_call: ModelCallWatch | None = None,
        attempts: int = 3,
        retry_delay_s: float = 1.0,
        approver: Approver | None = None,
    ) -> None:
        """`deps`: what the core uses (its data directory, sandbox, services, keys), handed in by
        whoever runs the loop, as a worker hands its own to its activities. `approver`: the
        person asked before a call that needs approval runs (None: nobody is asked)."""
        self._deps = deps
        self._approver = approver
        self._on_step = on_step or (lambda record: None)
        self._on_model_call = on_model_call or (lambda step, usage: contextlib.nullcontext())
        self._attempts = attempts
        self._retry_delay_s = retry_delay_s
        self._failed_attempts = Usage()
        self._retries: RetryBudget | None = None

    async def run(self, request: RunRequest) -> RunResult:
        started = time.monotonic()
        usage = Usage()
        self._failed_attempts = Usage()
        self._retries = request.retries
        # The acceptance checks' status as last told, when the run shows it (show_acceptance).
        status = ""
        conversation = StepLog()
        executed: list[ExecutedCall] = []
        # Its effects so far, for the approval rules' limits over the run, as the durable runtime
        # keeps them; in memory, so a baseline run restarted after a crash starts counting anew.
        effects: list[EarlierEffect] = []
        approvals: list[ApprovalDecision] = []
        unapproved: list[UnapprovedEffect] = []
        prepared = PrepareWorkspaceInput(world_id=request.world_id, fixture_dir=request.fixture_dir)
        prepared_workspace = await prepare_workspace(self._deps, prepared)
        workspace = prepared_workspace.path
        # What the run holds on the host's disk (agent.budget): measured after every tool that
        # may write (the baseline makes no checkpoints: its repository holds the fixture).
        disk = await asyncio.to_thread(disk_use.measure, self._deps.checkpoints, Path(workspace))

        outcome, reason = RunState.BUDGET_EXHAUSTED, f"no finish within {counted(request.budget.max_steps, 'step')}"
        for step in range(1, request.budget.max_steps + 1):
            # The only budget it checks besides its steps: the host's safety, not orchestration.
            if spent := disk_exhausted(request.budget, disk):
                outcome, reason = RunState.BUDGET_EXHAUSTED, f"{spent} after {counted(step - 1, 'step')}"
                break
            asked = ProposeActionInput(
                provider=request.provider,
                goal=request.goal,
                history=conversation.turns,
                workspace=workspace,
                workspace_files=prepared_workspace.files,
                run_id=request.run_id,
                step=step,
                tools=request.tools,
                acceptance=request.acceptance if request.show_acceptance else None,
            )
            try:
                async with self._on_model_call(step, usage + self._failed_attempts):
                    proposed = await self._retrying(propose_action, asked)
            except LabError as error:
                outcome, reason = RunState.FAILED, f"model call failed: {type(error).__name__}: {error}"
                break
            usage += proposed.usage
            proposal, spent = proposed.proposal, proposed.usage
            if proposal is None:
                said = f"unusable answer: {proposed.invalid_output}"
                self._on_step(conversation.record(step, request.task_id, "rejected", None, usage=spent, said=said))
                continue
            if proposal.kind == "give_up":
                said = "the model gave up"
                self._on_step(conversation.record(step, request.task_id, "rejected", proposal, usage=spent, said=said))
                outcome, reason = RunState.FAILED, f"the model gave up: {proposal.thought}"
                break
            if proposal.kind == "finish":
                said = "finished"
                self._on_step(conversation.record(step, request.task_id, "committed", proposal, usage=spent, said=said))
                outcome, reason = RunState.COMPLETED, ""
                break
            # By default no verifier: what the model proposes runs, once a person allows what needs it.
            verdict = None
            earlier = for_rule(proposal, effects)
            tmp = await selected_private_tmp(self._deps)  # /tmp is the command's own in this sandbox
            if request.baseline_verifies:
                # The same verifier as the durable runtime's, repeated-action check included.
                verdict = await asyncio.to_thread(
                    verify,
                    Path(workspace),
                    proposal,
                    request.profile,
                    executed,
                    earlier,
                    private_tmp=tmp,
                    offered=request.tools,
                )
                need = verdict if verdict.decision == "needs_approval" else None
                if verdict.decision == "reject" or (need is not None and self._approver is None):
                    said = feedback.after_verdict(verdict)
                    rejected = conversation.record(
                        step, request.task_id, "rejected", proposal, usage=spent, said=said, verdict=verdict
                    )
                    self._on_step(rejected)
                    continue
            else:
                need = await asyncio.to_thread(
                    approval_needed,
                    Path(workspace),
                    proposal,
                    request.profile,
                    earlier,
                    private_tmp=tmp,
                    offered=request.tools,
                )
            if need is not None and self._approver is not None:
                decision = await self._approver(pending(step, request.task_id, proposal, need))
                approvals.append(decision)
                if not decision.approved:
                    said = feedback.after_denial(decision)
                    denied = conversation.record(
                        step, request.task_id, "rejected", proposal, usage=spent, said=said, verdict=need
                    )
                    self._on_step(denied)
                    continue
                verdict = need  # approved: the step commits under the verdict that asked for it
            execution = ExecuteToolInput(
                workspace=workspace,
                proposal=proposal,
                run_id=request.run_id,
                step=step,
                world_id=request.world_id,
                disk_left_bytes=disk_left(request.budget, disk),
                # Without a verifier too, only what the task offers runs (agent.execution).
                tools=request.tools,
            )
            try:
                result = await self._retrying(execute, execution)
            except LabError as error:
                outcome, reason = RunState.FAILED, f"tool call failed: {type(error).__name__}: {error}"
                break
            disk = await _disk_after(self._deps.checkpoints, disk, Path(workspace), result)
            if verdict is not None and (ran := executed_call(step, proposal, verdict, result)) is not None:
                executed.append(ran)
            if (effect := earlier_effect(step, proposal, result)) is not None:
                effects.append(effect)
            if need is not None and verdict is None and result.ok:
                unapproved.append(
                    UnapprovedEffect(step=step, tool=result.tool, reason_code=need.reason_code, message=need.message)
                )
            # Told as the durable runtime tells it, with the same words, when the run shows it.
            shown = None
            if request.show_acceptance and result.ok and request.acceptance:
                shown = await check(self._deps, Path(workspace), request.acceptance, request.world_id)
            said = feedback.after_tool(result, shown, told=status)
            status = feedback.after_check(shown) if shown is not None else status
            record = conversation.record(
                step,
                request.task_id,
                "committed" if result.ok else "rejected",
                proposal,
                usage=spent,
                said=said,
                # A person's approval shows as the verdict that asked for it (what the measure reads).
                verdict=verdict if verdict is not None and need is not None else None,
                result=result.summary(),
                fault_injected=result.fault_injected,
            )
            self._on_step(record)

        # "finish" is the model's own claim; the run is judged on the real end state.
        acceptance = await check(self._deps, Path(workspace), request.acceptance, request.world_id)
        if outcome == RunState.COMPLETED and not acceptance.passed:
            outcome = RunState.FAILED
            reason = "acceptance failed: " + "; ".join(f.description for f in acceptance.failures())
        if unapproved:
            # Whatever the end state: the rule that asks a person was not honoured.
            said = "; ".join(effect.describe() for effect in unapproved)
            outcome, reason = RunState.FAILED, f"unapproved_effect: {said}" + (f" (also: {reason})" if reason else "")
        return RunResult(
            run_id=request.run_id,
            runtime="baseline",
            task_id=request.task_id,
            outcome=outcome,
            reason=reason,
            workspace=workspace,
            steps=conversation.steps,
            acceptance=acceptance,
            usage=usage + self._failed_attempts,
            wasted=self._failed_attempts
            + sum((s.usage for s in conversation.steps if s.outcome == "rejected"), Usage()),
            wall_time_s=time.monotonic() - started,
            effects=effects,
            approvals=approvals,
            unapproved_effects=unapproved,
            sandbox=prepared_workspace.sandbox,
            disk=disk,
        )

    async def _retrying(self, call: Callable[[Dependencies, In], Awaitable[Out]], argument: In) -> Out:
        """Simple retries: transient errors only, a fixed pause and number of attempts, or the
        run's retry budget (RunRequest.retries) when it has one. What a failed model attempt
        cost travels in its error; it is counted all the same."""
        budget, model = self._retries, isinstance(argument, ProposeActionInput)
        attempts = self._attempts if budget is None else budget.model_attempts if model else budget.tool_attempts
        attempt = 1
        while True:
            if isinstance(argument, ProposeActionInput):
                # A model call knows its attempt, as a Temporal activity does.
                argument = argument.model_copy(update={"attempt": attempt})  # type: ignore[assignment]
            try:
                return await call(self._deps, argument)
            except LabError as error:
                if isinstance(error, ProviderError) and error.usage is not None:
                    self._failed_attempts += error.usage
                if not error.retryable or attempt >= attempts:
                    raise
                # A server's own retry-after, when it gave one; else the fixed pause.
                retry_after = error.retry_after_s if isinstance(error, ProviderUnavailable) else None
                pause = retry_after or (self._retry_delay_s if budget is None else budget.backoff_s(attempt))
            attempt += 1
            await asyncio.sleep(pause)


async def _disk_after(checkpoints_root: Path, disk: DiskUse, workspace: Path, result: ToolResult) -> DiskUse:
    """The run's disk after a tool call: its stored output counted, the workspace measured again
    if the tool may have written (in a thread: a walk of the tree)."""
    if result.artifact is not None:
        disk = disk.with_artifact(result.artifact.size_bytes)
    if result.tool in READ_ONLY_TOOLS:
        return disk
    return disk.measured(await asyncio.to_thread(disk_use.measure, checkpoints_root, workspace))
