"""The `record_step` activity: a step's checkpoint and ledger events, in one short local activity."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent.step_records import record_step as record
from contracts.envelopes import RecordStepInput, RecordStepResult


@activity.defn
async def record_step(request: RecordStepInput) -> RecordStepResult:
    async with activity_boundary(heartbeat=False):
        return await record(request)
