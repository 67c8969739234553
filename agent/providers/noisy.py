"""A noisy wrapper over any provider: seeded model faults at configured rates.

Each call draws its faults from a generator seeded by (noise seed, step, attempt), never by the
run: the same experiment sees the same faults, every arm of a trial (whose runs differ) draws
the same faults at the same step, and a retried attempt draws afresh (a 429 is not repeated
forever). Every fault injected is appended to `DATA/injected/RUN.jsonl`, so an
experiment can prove it fired.

    latency            sleep before answering
    rate_limit         a 429 (retryable, with a short retry-after)
    timeout            the call times out (retryable)
    malformed_json     the answer is not JSON                     -> fed back as unusable
    unknown_tool       a tool that does not exist                 -> rejected by the verifier
    invalid_arguments  arguments that fail the tool's schema      -> rejected by the verifier
    dangerous          a destructive command                      -> rejected by the verifier
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from datetime import UTC, datetime
from pathlib import Path

from pydantic import BaseModel

from agent.providers.base import ModelProvider, Reply
from contracts import (
    ActionProposal,
    GoalInterpretation,
    NoiseConfig,
    Plan,
    PlanRevision,
    ProposeActionInput,
    ProposeActionResult,
    ToolSpec,
    Usage,
)
from contracts.errors import ProviderUnavailable

CONTENT_FAULTS = ("malformed_json", "unknown_tool", "invalid_arguments", "dangerous")
DANGEROUS = ActionProposal(tool="run_command", arguments={"command": "rm -rf / --no-preserve-root"})


class InjectedFault(BaseModel):
    run_id: str
    step: int
    attempt: int
    fault: str
    time: datetime


def injected_log(directory: Path, run_id: str) -> Path:
    """Where a run's injected faults are logged (agent.dependencies.Dependencies.injected)."""
    return directory / f"{run_id}.jsonl"


def read_injected(directory: Path, run_id: str) -> list[InjectedFault]:
    path = injected_log(directory, run_id)
    if not path.exists():
        return []
    return [InjectedFault.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


class NoisyProvider:
    def __init__(self, inner: ModelProvider, noise: NoiseConfig, log_dir: Path) -> None:
        self._inner = inner
        self._log_dir = log_dir
        self._noise = noise

    async def interpret_goal(self, goal: str, tools: list[ToolSpec] | None = None) -> Reply[GoalInterpretation]:
        return await self._inner.interpret_goal(goal, tools)

    async def draft_plan(
        self, goal: str, summary: str, tools: list[ToolSpec], revision: PlanRevision | None = None
    ) -> Reply[Plan]:
        if revision is None:
            return await self._inner.draft_plan(goal, summary, tools)
        return await self._inner.draft_plan(goal, summary, tools, revision)

    async def propose(self, request: ProposeActionInput, tools: list[ToolSpec]) -> ProposeActionResult:
        attempt = request.attempt
        # Not the run id: two arms of one trial (or a trial run again after a resume) have other
        # run ids, and must meet the same faults to be compared pair by pair.
        draw = random.Random(f"{self._noise.seed}:{request.step}:{attempt}")
        rolls = {name: draw.random() for name in ("rate_limit", "timeout", *CONTENT_FAULTS)}
        started = time.perf_counter()
        if self._noise.latency_s:
            await asyncio.sleep(self._noise.latency_s)
        for transient in ("rate_limit", "timeout"):
            if rolls[transient] < getattr(self._noise, transient):
                await self._record(request, attempt, transient)
                spent = Usage(model_calls=1, latency_ms=(time.perf_counter() - started) * 1000, provider="noisy")
                limited = transient == "rate_limit"
                raise ProviderUnavailable(
                    f"injected {'429 Too Many Requests' if limited else 'timeout'}",
                    usage=spent,
                    retry_after_s=0.5 if limited else None,
                )
        result = await self._inner.propose(request, tools)
        for fault in CONTENT_FAULTS:
            if rolls[fault] < getattr(self._noise, fault):
                await self._record(request, attempt, fault)
                return _corrupt(result, fault, tools)
        due = self._noise.ensure_by_step
        if (
            due is not None
            and request.step >= due
            and not await asyncio.to_thread(read_injected, self._log_dir, request.run_id)
        ):
            fault = CONTENT_FAULTS[min(int(rolls["malformed_json"] * len(CONTENT_FAULTS)), len(CONTENT_FAULTS) - 1)]
            await self._record(request, attempt, fault)
            return _corrupt(result, fault, tools)
        return result

    async def _record(self, request: ProposeActionInput, attempt: int, fault: str) -> None:
        entry = InjectedFault(
            run_id=request.run_id, step=request.step, attempt=attempt, fault=fault, time=datetime.now(UTC)
        )
        await asyncio.to_thread(
            _append, injected_log(self._log_dir, request.run_id or "unknown"), entry.model_dump_json()
        )


def _corrupt(result: ProposeActionResult, fault: str, tools: list[ToolSpec]) -> ProposeActionResult:
    if fault == "malformed_json":
        text = json.dumps(result.proposal.model_dump() if result.proposal else {})[:-7]
        return result.model_copy(update={"proposal": None, "invalid_output": f"not valid JSON: {text}"})
    if fault == "unknown_tool":
        proposal = ActionProposal(tool="delete_everything", arguments={"confirm": True}, thought="clean up")
    elif fault == "invalid_arguments":
        tool = tools[0].name if tools else "read_file"
        proposal = ActionProposal(tool=tool, arguments={"no_such_argument": 42})
    else:
        proposal = DANGEROUS
    return result.model_copy(update={"proposal": proposal, "invalid_output": None})


def _append(path: Path, line: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as log:
        log.write(line + "\n")
