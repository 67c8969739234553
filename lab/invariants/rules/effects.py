"""one-effect-per-key: each idempotency key acted at most once. A call that changes something
records its intent and its effect under a key derived from (run, step, tool, arguments); a
retry gets the recorded effect back (`replayed`) or finds it in the target system
(`recovered`) instead of acting again (`agent/execution.py`). Two results under one key that
both acted are a duplicated side effect; a changing call that acted with no key escaped the
effect store altogether."""

from __future__ import annotations

from agent.tools.registry import TOOLS
from contracts import ToolResult
from lab.invariants.report import Evidence, Violation, violation
from lab.invariants.story import RunStory, StepStory

RULE = "one-effect-per-key"


def check(evidence: Evidence) -> list[Violation]:
    return [found for story in evidence.stories() for found in _story(story)]


def _story(story: RunStory) -> list[Violation]:
    found: list[Violation] = []
    acted: dict[str, list[StepStory]] = {}
    tools: dict[str, str] = {}
    for told in story.steps:
        result = told.result
        if result is None or not _acted(result):
            continue
        if result.idempotency_key is None:
            message = f"step {told.step}: {result.tool} acted with no idempotency key: no effect store stood behind it"
            found.append(violation(RULE, message, told.result_at))
        else:
            acted.setdefault(result.idempotency_key, []).append(told)
            tools[result.idempotency_key] = result.tool
    for key, steps in acted.items():
        if len(steps) > 1:
            where = ", ".join(f"step {told.step}" for told in steps)
            message = f"idempotency key {key[:12]}... acted {len(steps)} times ({tools[key]}: {where})"
            found.append(violation(RULE, message, *(told.result_at for told in steps)))
    return found


def _acted(result: ToolResult) -> bool:
    """The call changed something itself: a tool that is recorded (anything but a read), and a
    result that is neither the recorded effect given back nor one found already done."""
    tool = TOOLS.get(result.tool)
    return tool is not None and tool.recorded and not (result.replayed or result.recovered)
