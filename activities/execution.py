"""The tool activities: a tool call, exactly once per idempotency key (agent.execution)."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent.dependencies import Dependencies
from agent.execution import execute
from agent.tools.registry import READ_ONLY_TOOLS
from contracts import ExecuteToolInput, ToolResult
from contracts.errors import BadInput


class ToolActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="execute_tool")
    async def execute_tool(self, request: ExecuteToolInput) -> ToolResult:
        async with activity_boundary(self.deps.attempts):
            return await execute(self.deps, request)

    @activity.defn(name="execute_read_only_tool")
    async def execute_read_only_tool(self, request: ExecuteToolInput) -> ToolResult:
        """A tool that only reads the workspace, in-process, in milliseconds: the workflow runs it
        as a local activity, within the workflow task that verified it. It has nothing to record
        in the effect store and nothing to heartbeat (a worker that dies under it loses the
        workflow task, which another worker runs again)."""
        async with activity_boundary(self.deps.attempts, heartbeat=False):
            if request.proposal.tool not in READ_ONLY_TOOLS:
                raise BadInput(f"{request.proposal.tool!r} is not a read-only tool: it runs as execute_tool")
            return await execute(self.deps, request)
