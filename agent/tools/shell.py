"""The run_command tool: a shell command in the workspace, run in the sandbox."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from agent.sandbox import CommandOutcome
from agent.tools.context import ToolContext
from contracts.errors import ToolError

MAX_COMMAND_TIMEOUT_S = 600.0


class RunCommandArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(min_length=1, description="Shell command, run with /bin/sh in the workspace root.")
    timeout_s: float = Field(
        default=60.0, gt=0, le=MAX_COMMAND_TIMEOUT_S, description="Seconds before the command is killed."
    )


async def run_command(ctx: ToolContext, args: RunCommandArgs) -> CommandOutcome:
    if ctx.sandbox is None:
        raise ToolError("run_command was given no sandbox")
    return await ctx.sandbox.run(args.command, ctx.workspace, args.timeout_s)
