"""A provider that follows a per-task script: deterministic, free, and exactly reproducible.

Where it is in the script is derived from the request alone (its own earlier proposals among
the turns), never from hidden state, so a retried or replayed call gets the same answer.
"""

from __future__ import annotations

import asyncio
import functools
import time
from pathlib import Path

from agent.providers.base import Reply
from contracts import (
    ActionProposal,
    GoalInterpretation,
    Plan,
    PlanRevision,
    ProposeActionInput,
    ProposeActionResult,
    ToolSpec,
    Turn,
    Usage,
)
from contracts.errors import ScriptError
from contracts.project import project_path
from contracts.script import Script, ScriptInvalid, parse_script


class ScriptedProvider:
    def __init__(self, script_path: str) -> None:
        self._path = project_path(script_path)

    async def interpret_goal(self, goal: str, tools: list[ToolSpec] | None = None) -> Reply[GoalInterpretation]:
        started = time.perf_counter()
        script = await self._script()
        return Reply(script.goal, _usage(goal, script.goal.model_dump_json(), started))

    async def draft_plan(
        self, goal: str, summary: str, tools: list[ToolSpec], revision: PlanRevision | None = None
    ) -> Reply[Plan]:
        started = time.perf_counter()
        script = await self._script()
        plan = script.as_plan()
        if revision is not None:
            # A script has one revised plan, its `replan:`: plan v2.
            revised = script.revised_plan() if revision.version == 2 else None
            if revised is None:
                raise ScriptError(f"{self._path}: the script has no plan v{revision.version} (`replan:` is v2)")
            plan, summary = revised, summary + revision.told()
        return Reply(plan, _usage(goal + summary, plan.model_dump_json(), started))

    async def propose(self, request: ProposeActionInput, tools: list[ToolSpec]) -> ProposeActionResult:
        started = time.perf_counter()
        script = await self._script()
        subtask_id = request.subtask.id if request.subtask else None
        if subtask_id is not None and not script.has_subtask(subtask_id):
            # A plan the script did not draft: a model's, in a run forked from a model's run
            # (a counterfactual with the oracle). The script follows its whole course within
            # the task, as for a loop without a plan, from where the task's turns have got it.
            subtask_id = None
        actions = script.actions_for(subtask_id)
        position = script_position(actions, request.history)
        if position < len(actions):
            proposal = actions[position]
        else:
            proposal = ActionProposal(kind="give_up", thought="The script has no further steps.")
        return ProposeActionResult(
            proposal=proposal, usage=_usage(request.model_dump_json(), proposal.model_dump_json(), started)
        )

    async def _script(self) -> Script:
        try:
            mtime = (await asyncio.to_thread(self._path.stat)).st_mtime_ns
        except OSError:
            raise ScriptError(f"script not found: {self._path}") from None
        return await asyncio.to_thread(_load_script, self._path, mtime)


def script_position(actions: list[ActionProposal], history: list[Turn]) -> int:
    """How far the script has got: the turns that were its own proposals, in order. A turn the
    script did not propose (a fault injected in its place), or one of its own that failed by an
    injected fault (a tool timeout), does not move it on, so the script proposes its step
    again, as a model would after a glitch. A step that fails on its own counts as done: the
    script goes on as written."""
    position = 0
    for turn in history:
        if position < len(actions) and turn.proposal == actions[position] and not turn.fault_injected:
            position += 1
    return position


@functools.lru_cache(maxsize=64)
def _load_script(path: Path, mtime_ns: int) -> Script:
    """Parsed once per file version (the modification time is part of the cache key)."""
    try:
        return parse_script(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ScriptError(f"{path}: not UTF-8 text") from None
    except ScriptInvalid as error:
        raise ScriptError(f"{path}: {error}") from None


def _usage(prompt: str, answer: str, started: float) -> Usage:
    # No model, no tokenizer: about four characters per token, so the cost accounting
    # downstream sees figures of the right size.
    return Usage(
        input_tokens=len(prompt) // 4,
        output_tokens=len(answer) // 4,
        latency_ms=(time.perf_counter() - started) * 1000,
        model_calls=1,
        provider="scripted",
        model="script",
    )
