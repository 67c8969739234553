"""Tool execution. Every failure becomes a typed ToolResult; nothing a tool does crashes a worker."""

from __future__ import annotations

import time
from pathlib import Path

from pydantic import ValidationError
from temporalio import activity

from activities.errors import ToolError
from activities.heartbeat import heartbeating
from activities.tools.commands import CommandOutcome
from activities.tools.registry import TOOLS
from activities.verification import describe_validation_error
from contracts import ActionProposal, ExecuteToolInput, ToolResult


async def execute(workspace: Path, proposal: ActionProposal) -> ToolResult:
    name = proposal.tool or ""
    tool = TOOLS.get(name)
    if tool is None:
        return ToolResult(tool=name, ok=False, error=f"unknown tool {name!r}")
    try:
        arguments = tool.arguments.model_validate(proposal.arguments)
    except ValidationError as error:
        return ToolResult(tool=name, ok=False, error=describe_validation_error(error))
    started = time.perf_counter()
    try:
        async with heartbeating():
            outcome = await tool.run(workspace, arguments)
    except ToolError as error:
        return ToolResult(tool=name, ok=False, error=str(error), duration_ms=_since(started))
    except OSError as error:
        return ToolResult(tool=name, ok=False, error=f"{type(error).__name__}: {error}", duration_ms=_since(started))
    except Exception as error:
        # The tool boundary: whatever a tool does wrong is a failed result the model can
        # read, never a crashed worker or an activity retried into the same failure.
        error_text = f"internal tool error: {type(error).__name__}: {error}"
        return ToolResult(tool=name, ok=False, error=error_text, duration_ms=_since(started))
    if isinstance(outcome, CommandOutcome):
        return ToolResult(
            tool=name,
            ok=not outcome.timed_out,
            output=outcome.output,
            error="timed out" if outcome.timed_out else None,
            exit_code=outcome.exit_code,
            timed_out=outcome.timed_out,
            truncated=outcome.truncated,
            duration_ms=outcome.duration_ms,
            backend="process",
        )
    return ToolResult(tool=name, ok=True, output=outcome, duration_ms=_since(started))


@activity.defn
async def execute_tool(request: ExecuteToolInput) -> ToolResult:
    return await execute(Path(request.workspace), request.proposal)


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
