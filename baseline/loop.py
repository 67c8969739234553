"""A conventional tool loop in plain asyncio, the lab's point of comparison.

Its state is a conversation (every turn so far) held in memory; the model sees all of it and
decides when it is done. It calls the very functions the durable workers run as activities
(provider, tools, postcondition check), so a difference in results is the orchestration's.
What it lacks on purpose: a plan, a verifier before execution, checks between steps, durable
state: a crash loses the run. What it keeps, as the durable runtime does, is the host's safety:
the same sandbox, and the same host-disk budget per run; and a person's approval, asked with the
same rule (agent.approval_need) of an `approver` when it is given one. Given none, a call that
needs approval runs all the same and is recorded as an unapproved effect, which fails the run.

Given a `journal` (baseline.journal), it is the journaled loop: every call to the outside world
goes through it, so a rerun under the same run id reads back what a killed attempt had done and
goes on live where it was. Without one, a rerun starts over.
"""

from __future__ import annotations

import contextlib
import functools
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

from pydantic import TypeAdapter

from agent import feedback
from agent.budget import disk_exhausted, disk_left
from agent.dependencies import Dependencies
from agent.earlier_effects import earlier_effect, for_rule
from agent.execution import execute
from agent.model_calls import propose_action
from agent.postconditions import check
from agent.step_log import StepLog
from agent.verification import executed_call
from agent.workspace import prepare_workspace
from baseline.approval import Approver, pending
from baseline.disk import disk_after, measured
from baseline.journal import StepJournal
from baseline.retrying import Retrying
from baseline.verdict import verdict_before
from contracts import (
    ApprovalDecision,
    DiskUse,
    EarlierEffect,
    ExecutedCall,
    ExecuteToolInput,
    PostconditionResult,
    PrepareWorkspaceInput,
    PrepareWorkspaceResult,
    ProposeActionInput,
    ProposeActionResult,
    RunRequest,
    RunResult,
    RunState,
    StepRecord,
    ToolResult,
    UnapprovedEffect,
    Usage,
    Verdict,
)
from contracts.counts import counted
from contracts.errors import LabError

StepCallback = Callable[[StepRecord], None]
# Around each model call (its retries included): the step it proposes, and the run's usage so far.
ModelCallWatch = Callable[[int, Usage], contextlib.AbstractAsyncContextManager[object]]
# A call to the outside world made live (not read back from a journal): its step and its name.
LiveCallWatch = Callable[[int, str], None]
T = TypeVar("T")
P = ParamSpec("P")

# What each journaled call gives back, by its name in the journal.
_PREPARED = TypeAdapter(PrepareWorkspaceResult)
_DISK = TypeAdapter(DiskUse)
_PROPOSED = TypeAdapter(ProposeActionResult)
_VERDICT = TypeAdapter(Verdict | None)
_DECISION = TypeAdapter(ApprovalDecision)
_RESULT = TypeAdapter(ToolResult)
_CHECKED = TypeAdapter(PostconditionResult)


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
        journal: StepJournal | None = None,
        on_live_call: LiveCallWatch | None = None,
    ) -> None:
        """`deps`: what the core uses (its data directory, sandbox, services, keys), handed in by
        whoever runs the loop, as a worker hands its own to its activities. `approver`: the
        person asked before a call that needs approval runs (None: nobody is asked).
        `journal`: where its calls are kept, and read back from on a rerun (None: nowhere)."""
        self._deps = deps
        self._approver = approver
        self._journal = journal
        self._on_step = on_step or (lambda record: None)
        self._on_model_call = on_model_call or (lambda step, usage: contextlib.nullcontext())
        self._on_live_call = on_live_call or (lambda step, call: None)
        self._attempts = attempts
        self._retry_delay_s = retry_delay_s
        self._retrying = Retrying(deps, attempts, retry_delay_s, None)

    async def run(self, request: RunRequest) -> RunResult:
        started = time.monotonic()
        usage = Usage()
        self._retrying = Retrying(self._deps, self._attempts, self._retry_delay_s, request.retries)
        # The acceptance checks' status as last told, when the run shows it (show_acceptance).
        status = ""
        conversation = StepLog()
        executed: list[ExecutedCall] = []
        # Its effects so far, for the approval rules' limits over the run, as the durable runtime
        # keeps them; in memory, so a rerun after a crash starts counting anew (unless journaled:
        # then the tool results read back count them again).
        effects: list[EarlierEffect] = []
        approvals: list[ApprovalDecision] = []
        unapproved: list[UnapprovedEffect] = []
        prepared = PrepareWorkspaceInput(world_id=request.world_id, fixture_dir=request.fixture_dir)
        # The listing the model is shown stays the first attempt's on a journaled rerun.
        prepared_workspace = await self._once(0, "workspace", _PREPARED, prepare_workspace, self._deps, prepared)
        workspace = prepared_workspace.path
        # What the run holds on the host's disk (agent.budget), measured again after every tool.
        disk = await self._once(0, "disk", _DISK, measured, self._deps.checkpoints, Path(workspace))

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
                proposed = await self._once(step, "model", _PROPOSED, self._propose, step, asked, usage)
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
            earlier = for_rule(proposal, effects)
            judged = (self._deps, request, Path(workspace), proposal, executed, earlier)
            verdict = await self._once(step, "verdict", _VERDICT, verdict_before, *judged)
            need = verdict if verdict is not None and verdict.decision == "needs_approval" else None
            if not request.baseline_verifies:
                verdict = None  # it asked only whether a person must allow the call
            elif verdict is not None and (
                verdict.decision == "reject" or (need is not None and self._approver is None)
            ):
                said = feedback.after_verdict(verdict)
                rejected = conversation.record(
                    step, request.task_id, "rejected", proposal, usage=spent, said=said, verdict=verdict
                )
                self._on_step(rejected)
                continue
            if need is not None and (approver := self._approver) is not None:
                asking = pending(step, request.task_id, proposal, need)
                decision = await self._once(step, "approval", _DECISION, approver, asking)
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
                result = await self._once(step, "tool", _RESULT, self._retrying, execute, execution)
            except LabError as error:
                outcome, reason = RunState.FAILED, f"tool call failed: {type(error).__name__}: {error}"
                break
            disk = await self._once(
                step, "disk", _DISK, disk_after, self._deps.checkpoints, disk, Path(workspace), result
            )
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
                acceptance = (self._deps, Path(workspace), request.acceptance, request.world_id)
                shown = await self._once(step, "shown", _CHECKED, check, *acceptance)
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
            usage=usage + self._retrying.failed,
            wasted=self._retrying.failed
            + sum((s.usage for s in conversation.steps if s.outcome == "rejected"), Usage()),
            wall_time_s=time.monotonic() - started,
            effects=effects,
            approvals=approvals,
            unapproved_effects=unapproved,
            sandbox=prepared_workspace.sandbox,
            disk=disk,
        )

    async def _propose(self, step: int, asked: ProposeActionInput, usage: Usage) -> ProposeActionResult:
        async with self._on_model_call(step, usage + self._retrying.failed):
            return await self._retrying(propose_action, asked)

    async def _once(
        self, step: int, call: str, kind: TypeAdapter[T], make: Callable[P, Awaitable[T]], *args: P.args
    ) -> T:
        """Every call to the outside world, `make(*args)`: read back from the run's journal when a
        killed attempt completed it, else made live (and journaled, when the run keeps one)."""
        journal = self._journal
        if journal is None or not journal.holds(step, call):
            self._on_live_call(step, call)
        if journal is None:
            return await make(*args)
        return await journal.once(step, call, kind, functools.partial(make, *args))
