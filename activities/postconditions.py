"""The one postcondition checker, reading the real end state, for both runtimes.

Commands run in the same sandbox as the agent's own: they run the agent's code (its tests),
so they get no more trust than the agent.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio import activity

from activities.errors import InvalidPath, SandboxError, to_application_error
from activities.execution import current_sandbox
from activities.heartbeat import heartbeating
from activities.tools.output import truncate
from activities.tools.paths import resolve_in_workspace
from contracts import (
    CheckPostconditionsInput,
    CommandExitCode,
    FileContains,
    FileNotContains,
    Postcondition,
    PostconditionOutcome,
    PostconditionResult,
)


async def check(
    workspace: Path, postconditions: list[Postcondition], world_id: str | None = None
) -> PostconditionResult:
    outcomes = [await _check_one(workspace, postcondition) for postcondition in postconditions]
    return PostconditionResult(outcomes=outcomes)


@activity.defn
async def check_postconditions(request: CheckPostconditionsInput) -> PostconditionResult:
    try:
        async with heartbeating():
            return await check(Path(request.workspace), request.postconditions, request.world_id)
    except SandboxError as error:
        raise to_application_error(error) from None


async def _check_one(workspace: Path, postcondition: Postcondition) -> PostconditionOutcome:
    description = postcondition.describe()
    if isinstance(postcondition, CommandExitCode):
        sandbox = await current_sandbox()
        outcome = await sandbox.run(postcondition.command, workspace, postcondition.timeout_s)
        if outcome.timed_out:
            return PostconditionOutcome(description=description, passed=False, detail="timed out")
        passed = outcome.exit_code == postcondition.expect_exit_code
        detail = f"exit {outcome.exit_code}"
        if not passed:
            detail += "\n" + truncate(outcome.output, 2000)[0]
        return PostconditionOutcome(description=description, passed=passed, detail=detail)
    try:
        target = resolve_in_workspace(workspace, postcondition.path)
    except InvalidPath as error:
        return PostconditionOutcome(description=description, passed=False, detail=str(error))
    text = await asyncio.to_thread(_read_or_none, target)
    match postcondition:
        case FileContains() if text is None:
            return PostconditionOutcome(description=description, passed=False, detail="file missing")
        case FileContains():
            return PostconditionOutcome(description=description, passed=postcondition.text in text)
        case FileNotContains():
            passed = text is None or postcondition.text not in text
            return PostconditionOutcome(description=description, passed=passed)


def _read_or_none(target: Path) -> str | None:
    if not target.is_file():
        return None
    return target.read_bytes().decode("utf-8", errors="replace")
