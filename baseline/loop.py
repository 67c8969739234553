"""A conventional tool loop in plain asyncio, the lab's point of comparison.

Its state is a conversation (a list of turns) held in memory; the model sees all of it and
decides when it is done. It calls the very functions the durable workers run as activities
(provider, tools, postcondition check), so a difference in results is the orchestration's.
What it lacks on purpose: a plan, a verifier before execution, checks between steps,
durable state. A crash loses the run.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Literal

from temporalio.exceptions import ApplicationError

from activities import check_postconditions, execute_tool, prepare_workspace, propose_action
from contracts import (
    ActionProposal,
    CheckPostconditionsInput,
    ExecuteToolInput,
    PrepareWorkspaceInput,
    ProposalRequest,
    ProposalResult,
    RunRequest,
    RunResult,
    RunState,
    StepRecord,
    Turn,
    Usage,
)
from workflows import feedback

StepCallback = Callable[[StepRecord], None]


class BaselineLoop:
    def __init__(self, *, on_step: StepCallback | None = None, model_attempts: int = 3, retry_delay_s: float = 1.0):
        self._on_step = on_step
        self._model_attempts = model_attempts
        self._retry_delay_s = retry_delay_s

    async def run(self, request: RunRequest) -> RunResult:
        started = time.monotonic()
        usage = Usage()
        steps: list[StepRecord] = []
        messages: list[Turn] = []

        def record(step: int, outcome: Literal["committed", "rejected"], proposal: ActionProposal | None,
                   said: str, result: str = "", step_usage: Usage | None = None) -> None:
            record_ = StepRecord(step=step, task_id=request.task_id, outcome=outcome, proposal=proposal,
                                 result=result, reason="" if outcome == "committed" else said,
                                 usage=step_usage or Usage())
            steps.append(record_)
            messages.append(Turn(step=step, proposal=proposal, outcome=outcome, feedback=said))
            if self._on_step:
                self._on_step(record_)

        workspace = await prepare_workspace(PrepareWorkspaceInput(run_id=request.run_id, fixture_dir=request.fixture_dir))
        outcome, reason = RunState.BUDGET_EXHAUSTED, f"no finish within {request.budget.max_steps} steps"
        for step in range(1, request.budget.max_steps + 1):
            try:
                proposed = await self._propose(ProposalRequest(provider=request.provider, goal=request.goal, history=messages))
            except ApplicationError as error:
                outcome, reason = RunState.FAILED, f"model call failed: {error.type}: {error.message}"
                break
            usage += proposed.usage
            proposal = proposed.proposal
            if proposal is None:
                record(step, "rejected", None, f"unusable answer: {proposed.invalid_output}", step_usage=proposed.usage)
                continue
            if proposal.kind == "give_up":
                record(step, "rejected", proposal, "the model gave up", step_usage=proposed.usage)
                outcome, reason = RunState.FAILED, f"the model gave up: {proposal.thought}"
                break
            if proposal.kind == "finish":
                record(step, "committed", proposal, "finished", step_usage=proposed.usage)
                outcome, reason = RunState.COMPLETED, ""
                break
            # No verifier: what the model proposes runs.
            result = await execute_tool(ExecuteToolInput(workspace=workspace.path, proposal=proposal))
            record(step, "committed" if result.ok else "rejected", proposal, feedback.after_tool(result, None),
                   result=result.summary(), step_usage=proposed.usage)

        # The model's "finish" is its own claim; the run is judged on the real end state.
        acceptance = await check_postconditions(
            CheckPostconditionsInput(workspace=workspace.path, postconditions=request.acceptance)
        )
        if outcome == RunState.COMPLETED and not acceptance.passed:
            outcome = RunState.FAILED
            reason = "acceptance failed: " + "; ".join(f.description for f in acceptance.failures())
        return RunResult(
            run_id=request.run_id,
            runtime="baseline",
            task_id=request.task_id,
            outcome=outcome,
            reason=reason,
            workspace=workspace.path,
            steps=steps,
            acceptance=acceptance,
            usage=usage,
            wall_time_s=time.monotonic() - started,
        )

    async def _propose(self, request: ProposalRequest) -> ProposalResult:
        """Simple retries: a fixed pause, a fixed number of attempts, transient errors only."""
        attempt = 1
        while True:
            try:
                return await propose_action(request)
            except ApplicationError as error:
                if error.non_retryable or attempt >= self._model_attempts:
                    raise
            attempt += 1
            await asyncio.sleep(self._retry_delay_s)
