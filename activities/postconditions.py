"""The `check_postconditions` activity."""

from __future__ import annotations

from pathlib import Path

from temporalio import activity

from activities.boundary import activity_boundary
from agent.postconditions import check
from contracts import CheckPostconditionsInput, PostconditionResult


@activity.defn
async def check_postconditions(request: CheckPostconditionsInput) -> PostconditionResult:
    async with activity_boundary():
        # A service that does not answer is retried, never judged: a done task reported as
        # unfinished could lead the model to act again.
        return await check(Path(request.workspace), request.postconditions, request.world_id, retry_outages=True)
