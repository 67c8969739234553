"""The one postcondition checker, reading the real end state, for both runtimes."""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio import activity

from activities.errors import InvalidPath
from activities.heartbeat import heartbeating
from activities.tools.commands import run_shell
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


async def check(workspace: Path, postconditions: list[Postcondition]) -> PostconditionResult:
    outcomes = [await _check_one(workspace, postcondition) for postcondition in postconditions]
    return PostconditionResult(outcomes=outcomes)


@activity.defn
async def check_postconditions(request: CheckPostconditionsInput) -> PostconditionResult:
    async with heartbeating():
        return await check(Path(request.workspace), request.postconditions)


async def _check_one(workspace: Path, postcondition: Postcondition) -> PostconditionOutcome:
    description = postcondition.describe()
    if isinstance(postcondition, CommandExitCode):
        outcome = await run_shell(postcondition.command, workspace, postcondition.timeout_s)
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
