"""Resource exhaustion visible in the shape of a script: fork bombs and job-spawning loops."""

from __future__ import annotations

from agent.policy.findings import Finding
from agent.policy.shell_model import Script
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
    return findings


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
