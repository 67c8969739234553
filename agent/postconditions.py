"""The one postcondition checker, reading the real end state, for both runtimes.

Commands run in the same sandbox as the agent's own: they run the agent's code (its tests),
so they get no more trust than the agent. Service postconditions read the run's tenant in the
operations service, once per check, so every one of them judges the same snapshot. None of
them raises for a missing or unreachable service: the postcondition fails and says why.
"""

from __future__ import annotations

import asyncio
import codecs
from pathlib import Path
from typing import Any

from agent import ops_world
from agent.dependencies import Dependencies
from agent.hostile_tree import NotRegularFile, WalkTooLong, chunks_of, deadline_in
from agent.sandbox import current_sandbox
from agent.tools.output import truncate
from agent.tools.paths import resolve_in_workspace
from contracts import (
    CommandExitCode,
    FileContains,
    FileNotContains,
    Postcondition,
    PostconditionOutcome,
    PostconditionResult,
)
from contracts.errors import InvalidPath, ToolError, ToolUnavailable
from contracts.postconditions import ServiceCount

_READ_DEADLINE_S = 20.0


async def check(
    deps: Dependencies,
    workspace: Path,
    postconditions: list[Postcondition],
    world_id: str | None = None,
    *,
    retry_outages: bool = False,
) -> PostconditionResult:
    """`retry_outages`: a service that does not answer raises ToolUnavailable instead of
    failing its postconditions, so an activity retries rather than reporting a done task as
    unfinished (which could lead a model to act again)."""
    world = _World(deps.ops_url, world_id, retry_outages)
    outcomes = []
    for postcondition in postconditions:
        if isinstance(postcondition, ServiceCount):
            outcomes.append(await _check_service_count(world, postcondition))
        else:
            outcomes.append(await _check_one(deps, workspace, postcondition))
    return PostconditionResult(outcomes=outcomes)


async def _check_one(deps: Dependencies, workspace: Path, postcondition: Postcondition) -> PostconditionOutcome:
    description = postcondition.describe()
    if isinstance(postcondition, CommandExitCode):
        sandbox = await current_sandbox(deps)
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
    try:
        found = await asyncio.to_thread(_found_in, target, postcondition.text)
    except WalkTooLong:
        detail = f"not read within {_READ_DEADLINE_S:.0f} s"
        return PostconditionOutcome(description=description, passed=False, detail=detail)
    match postcondition:
        case FileContains() if found is None:
            return PostconditionOutcome(description=description, passed=False, detail="file missing")
        case FileContains():
            return PostconditionOutcome(description=description, passed=found)
        case FileNotContains():
            return PostconditionOutcome(description=description, passed=not found)


def _found_in(target: Path, text: str) -> bool | None:
    """Whether the file holds `text` (its bytes decoded as UTF-8, invalid ones replaced); None
    when no regular file is there (a FIFO is never opened). Streamed: a workspace's 512 MiB
    file is never held whole, and a text across two chunks is still found."""
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    kept = ""
    try:
        for chunk in chunks_of(target, deadline=deadline_in(_READ_DEADLINE_S)):
            piece = kept + decoder.decode(chunk)
            if text in piece:
                return True
            kept = piece[max(0, len(piece) - len(text) + 1) :] if len(text) > 1 else ""
    except (OSError, NotRegularFile):  # missing, or not a regular file
        return None
    return text in kept + decoder.decode(b"", final=True)


class _World:
    """The run's tenant state, fetched on first use and kept for the rest of one check."""

    def __init__(self, ops_url: str | None, world_id: str | None, retry_outages: bool) -> None:
        self.ops_url = ops_url
        self.world_id = world_id
        self._retry_outages = retry_outages
        self._state: dict[str, Any] | None = None
        self._error: str | None = None

    async def state(self) -> dict[str, Any] | str:
        """The state, or why there is none."""
        if self._state is None and self._error is None:
            if not self.world_id:
                self._error = "no world id: the run's tenant in the operations service is unknown"
            else:
                try:
                    self._state = await ops_world.world_state(self.ops_url, self.world_id)
                except ToolUnavailable as error:
                    if self._retry_outages:
                        raise
                    self._error = str(error)
                except ToolError as error:
                    self._error = str(error)
        return self._state if self._state is not None else str(self._error)


async def _check_service_count(world: _World, postcondition: ServiceCount) -> PostconditionOutcome:
    description = postcondition.describe()
    state = await world.state()
    if isinstance(state, str):
        return PostconditionOutcome(description=description, passed=False, detail=state)
    rows = state.get(postcondition.resource)
    if not isinstance(rows, list):
        detail = f"the operations service's state has no {postcondition.resource} list"
        return PostconditionOutcome(description=description, passed=False, detail=detail)
    found = sum(1 for row in rows if isinstance(row, dict) and _matches(row, postcondition.where))
    detail = f"found {found}"
    if not state.get("seeded", True):
        detail += f" (tenant {world.world_id!r} was never seeded)"
    return PostconditionOutcome(description=description, passed=found == postcondition.expect, detail=detail)


def _matches(row: dict[str, Any], where: dict[str, str | int | bool]) -> bool:
    # Types must agree too: JSON's `true` is not the number 1, nor "4200" the number 4200.
    return all(
        name in row and type(row[name]) is type(expected) and row[name] == expected for name, expected in where.items()
    )
