"""The `check_postconditions` activity."""

from __future__ import annotations

from pathlib import Path

from temporalio import activity

from activities.boundary import activity_boundary
from agent.dependencies import Dependencies
from agent.postconditions import check
from contracts import CheckPostconditionsInput, PostconditionResult


class PostconditionActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="check_postconditions")
    async def check_postconditions(self, request: CheckPostconditionsInput) -> PostconditionResult:
        async with activity_boundary(self.deps.attempts):
            # A service that does not answer is retried, never judged: a done task reported as
            # unfinished could lead the model to act again.
            return await check(
                self.deps, Path(request.workspace), request.postconditions, request.world_id, retry_outages=True
            )
