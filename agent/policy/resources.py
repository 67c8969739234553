"""Resource exhaustion visible in the shape of a script: fork bombs, endless loops, loops of a
million rounds; and, through `resource_rules`, in each of its commands."""

from __future__ import annotations

import math

from agent.policy.findings import Finding
from agent.policy.resource_rules import MOST_ROUNDS, resource_command_findings
from agent.policy.shell_model import Loop, Script
from agent.policy.wrappers import unwrap
from contracts.actions import ReasonCode


def resource_findings(script: Script) -> list[Finding]:
    findings = []
    bomb = _fork_bomb(script)
    if bomb is not None:
        message = f"function {bomb!r} starts copies of itself in the background or a pipe: a fork bomb"
        findings.append(Finding(ReasonCode.RESOURCE_EXHAUSTION, message))
    for loop in script.loops:
        if loop.infinite and loop.starts_jobs:
            shown = loop.raw[:40]
            message = f"an endless loop starts background jobs ({shown!r}): give it an end and wait for its jobs"
            findings.append(Finding(ReasonCode.RESOURCE_EXHAUSTION, message))
        else:
            findings.extend(_loop_findings(loop))
    for command in script.commands:
        if command.words:
            findings.extend(resource_command_findings(unwrap(command.words, command.assignments), command))
    return findings


def _loop_findings(loop: Loop) -> list[Finding]:
    shown = loop.raw if len(loop.raw) <= 50 else loop.raw[:47] + "..."
    if (loop.infinite or loop.iterations == math.inf) and not loop.leaves:
        # Even `while true; do sleep 1; done` holds the command until it is killed.
        message = f"the loop `{shown}` never ends: give it a condition, a `break`, or a fixed count"
        return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]
    if loop.iterations is not None and MOST_ROUNDS < loop.iterations < math.inf:
        message = f"the loop `{shown}` runs {loop.iterations:,.0f} rounds: keep it under {MOST_ROUNDS:,}"
        return [Finding(ReasonCode.RESOURCE_EXHAUSTION, message)]
    return []


def _fork_bomb(script: Script) -> str | None:
    """A function that, through any chain of calls, starts a new process running itself.

    Plain recursion only deepens one process's stack; the bomb is a recursive call that
    forks (`&`, or a stage of a pipeline), since every call then multiplies.
    """
    calls: dict[str, set[str]] = {name: set() for name in script.functions}
    forking: list[tuple[str, str]] = []
    for command in script.commands:
        callee = command.name.text if command.name is not None else None
        if command.function is None or callee not in script.functions:
            continue
        calls[command.function].add(callee)
        if command.spawns:
            forking.append((command.function, callee))
    for caller, callee in forking:
        if _reaches(calls, callee, caller):
            return caller
    return None


def _reaches(calls: dict[str, set[str]], start: str, goal: str) -> bool:
    seen: set[str] = set()
    stack = [start]
    while stack:
        name = stack.pop()
        if name == goal:
            return True
        if name not in seen:
            seen.add(name)
            stack.extend(calls.get(name, ()))
    return False
