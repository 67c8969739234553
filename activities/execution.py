"""The `execute_tool` activity: a tool call, exactly once per idempotency key (agent.execution)."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent.execution import execute
from contracts import ExecuteToolInput, ToolResult


@activity.defn
async def execute_tool(request: ExecuteToolInput) -> ToolResult:
    async with activity_boundary():
        return await execute(request)
