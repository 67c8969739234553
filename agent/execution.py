"""Tool execution, exactly once per idempotency key. Every failure becomes a typed ToolResult;
nothing a tool does crashes a worker.

A call that changes something is recorded in the effect store: its intent before it acts,
its result after. A retry whose key has a recorded result gets that result without acting;
a retry whose intent is recorded but whose result is not (a worker died in between) asks the
target system through the tool's probe, and acts only if the effect is really absent.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from pydantic import BaseModel, ValidationError

from agent import checkpoints, faults
from agent.dependencies import Dependencies
from agent.effects.keys import canonical_json, idempotency_key
from agent.faults import FaultPoint
from agent.sandbox import CommandOutcome, current_sandbox
from agent.tools.context import ToolContext
from agent.tools.registry import TOOLS, Tool, ToolProbe
from agent.verification import describe_validation_error
from contracts import ExecuteToolInput, ResourceLimit, ToolResult
from contracts.budget import mib
from contracts.errors import ToolError, ToolUnavailable
from contracts.tools import not_offered


async def execute(deps: Dependencies, request: ExecuteToolInput) -> ToolResult:
    name = request.proposal.tool or ""
    tool = TOOLS.get(name)
    if tool is None:
        return ToolResult(tool=name, ok=False, error=f"unknown tool {name!r}")
    if (absent := not_offered(name, request.tools)) is not None:
        # Not a policy question, so not the verifier's alone: a runtime that runs without one
        # (the baseline) still runs only what the task offers.
        return ToolResult(tool=name, ok=False, error=absent)
    try:
        arguments = tool.arguments.model_validate(request.proposal.arguments)
    except ValidationError as error:
        return ToolResult(tool=name, ok=False, error=describe_validation_error(error))
    # Defaults left out: `{"command": "x"}` and `{"command": "x", "timeout_s": 60}` are one
    # call, and a field added to a tool later does not change the keys of calls in flight.
    canonical = arguments.model_dump(mode="json", exclude_defaults=True)
    key = idempotency_key(request.run_id, request.step, name, canonical)
    ctx = ToolContext(
        workspace=Path(request.workspace),
        run_id=request.run_id,
        world_id=request.world_id or request.run_id,
        step=request.step,
        idempotency_key=key,
        sandbox=await current_sandbox(deps) if tool.uses_sandbox else None,
        artifacts=deps.artifacts,
        ops_url=deps.ops_url,
        disk_left_bytes=request.disk_left_bytes,
    )
    if not tool.recorded:
        return await _run(deps.fault_plan, tool, ctx, arguments)

    store = deps.effects
    record = await asyncio.to_thread(store.lookup, key)
    if record is not None and record.done and record.result is not None:
        return record.result.model_copy(update={"replayed": True})
    if record is not None and tool.probe is not None:
        # Intent without effect: the last attempt died somewhere between the two records.
        found = await _probe(tool.name, tool.probe, ctx, arguments)
        if found is not None:
            result = ToolResult(tool=name, ok=True, output=found, backend="probe", idempotency_key=key, recovered=True)
            await asyncio.to_thread(store.record_effect, key, result)
            return result
    if record is not None and not tool.external_effects and request.checkpoint:
        # An attempt on the workspace died mid-way and may have left half its work: start
        # again from the last checkpoint, so the step acts once on a clean tree.
        await asyncio.to_thread(checkpoints.rollback, deps.checkpoints, ctx.workspace, request.checkpoint)
    if record is None:
        await asyncio.to_thread(store.record_intent, key, request.run_id, request.step, name, canonical_json(canonical))
    await faults.reach(deps.fault_plan, FaultPoint.BEFORE_EFFECT, run_id=ctx.run_id, step=ctx.step, tool=tool.name)
    result = await _run(deps.fault_plan, tool, ctx, arguments)
    await faults.reach(deps.fault_plan, FaultPoint.AFTER_EFFECT, run_id=ctx.run_id, step=ctx.step, tool=tool.name)
    await asyncio.to_thread(store.record_effect, key, result)
    return result


async def _probe(name: str, probe: ToolProbe, ctx: ToolContext, arguments: BaseModel) -> str | None:
    """The recorded effect, or None when the target system says it never happened. A probe
    that cannot tell makes the call retry later: acting on a guess could act twice."""
    try:
        return await probe(ctx, arguments)
    except ToolUnavailable:
        raise
    except Exception as error:
        raise ToolUnavailable(f"cannot tell whether {name} already acted: {type(error).__name__}: {error}") from None


async def _run(fault_plan: Path | None, tool: Tool, ctx: ToolContext, arguments: BaseModel) -> ToolResult:
    started = time.perf_counter()
    base = ToolResult(tool=tool.name, ok=False, idempotency_key=ctx.idempotency_key)
    try:
        injected = await faults.reach(
            fault_plan, FaultPoint.TOOL_EXECUTION, run_id=ctx.run_id, step=ctx.step, tool=tool.name
        )
        if injected == "transient_error":
            raise ToolUnavailable(f"{tool.name}: injected transient error")
        if injected == "timeout":
            text = "timed out (injected)"
            update = {"error": text, "timed_out": True, "fault_injected": True, "duration_ms": _since(started)}
            return base.model_copy(update=update)
        outcome = await tool.run(ctx, arguments)
    except ToolUnavailable:
        raise  # not a result: the activity is retried under the same key
    except ToolError as error:
        return base.model_copy(update={"error": str(error), "duration_ms": _since(started)})
    except OSError as error:
        return base.model_copy(update={"error": f"{type(error).__name__}: {error}", "duration_ms": _since(started)})
    except Exception as error:
        # The tool boundary: whatever a tool does wrong is a failed result the model can
        # read, never a crashed worker or an activity retried into the same failure.
        text = f"internal tool error: {type(error).__name__}: {error}"
        return base.model_copy(update={"error": text, "duration_ms": _since(started)})
    if isinstance(outcome, CommandOutcome):
        said = outcome.limit_message or ("timed out" if outcome.timed_out else None)
        if outcome.limit == ResourceLimit.DISK and ctx.disk_left_bytes is not None:
            said = f"{said}; {_run_disk_left(ctx.disk_left_bytes)}"
        return base.model_copy(
            update={
                # A limit that stopped the command is a failed call the model reads, not a crash.
                "ok": not outcome.timed_out and outcome.limit is None,
                "output": outcome.output,
                "error": said,
                "limit": outcome.limit or (ResourceLimit.WALL_TIME if outcome.timed_out else None),
                "exit_code": outcome.exit_code,
                "timed_out": outcome.timed_out,
                "truncated": outcome.truncated,
                "artifact": outcome.artifact,
                "duration_ms": outcome.duration_ms,
                "backend": outcome.backend,
                "sandboxed": outcome.sandboxed,
            }
        )
    backend = "service" if tool.external_effects else "in-process"
    return base.model_copy(update={"ok": True, "output": outcome, "duration_ms": _since(started), "backend": backend})


def _run_disk_left(left: int) -> str:
    # The model cannot tell this bound from the per-command quota unless it is told.
    return (
        f"that limit is what was left of the run's host-disk budget ({mib(left)}: its workspace, "
        "checkpoints and stored output count together), and the run ends once it is spent"
    )


def _since(started: float) -> float:
    return (time.perf_counter() - started) * 1000
