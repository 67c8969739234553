"""The run_command tool: a shell command in the workspace, run in the sandbox.

What the model sees of the output is bounded: a test run's output condensed to its failures,
anything else cut to a head and a tail. Whenever it sees less than the whole, the whole is an
artifact.
"""

from __future__ import annotations

import asyncio
import dataclasses

from pydantic import BaseModel, ConfigDict, Field

from agent import artifacts
from agent.artifacts import ArtifactStore
from agent.sandbox import CommandOutcome
from agent.tools.context import ToolContext
from agent.tools.output import truncate
from agent.tools.test_report import condense
from contracts.errors import ToolError

MAX_COMMAND_TIMEOUT_S = 600.0
# An artifact larger than this is not read back to be condensed: what the sandbox showed of it
# (its head and its tail, where pytest's summary is) is condensed instead.
_MAX_CONDENSED_BYTES = 4 * 1024**2


class RunCommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="Shell command, run with /bin/sh in the workspace root.")
    timeout_s: float = Field(
        default=60.0, gt=0, le=MAX_COMMAND_TIMEOUT_S, description="Seconds before the command is killed."
    )


async def run_command(ctx: ToolContext, args: RunCommandArgs) -> CommandOutcome:
    if ctx.sandbox is None:
        raise ToolError("run_command was given no sandbox")
    outcome = await ctx.sandbox.run(args.command, ctx.workspace, args.timeout_s, ctx.disk_left_bytes)
    return await asyncio.to_thread(_bounded, outcome, ctx.artifacts)


def _bounded(outcome: CommandOutcome, store: ArtifactStore) -> CommandOutcome:
    """The outcome as the model should see it. Blocking: it may read and store an artifact."""
    whole = outcome.output
    if outcome.artifact is not None and outcome.artifact.size_bytes <= _MAX_CONDENSED_BYTES:
        whole = artifacts.read_text(outcome.artifact)
    shown = condense(whole)
    if shown is None:
        shown, cut = truncate(whole)
        if not cut:
            return outcome
    # Without an artifact the output is whole (the sandbox cuts only what it stores).
    artifact = outcome.artifact or store.put_bytes(whole.encode("utf-8"))
    return dataclasses.replace(outcome, output=shown, truncated=True, artifact=artifact)
