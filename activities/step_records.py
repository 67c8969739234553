"""The `record_step` activity: a step's checkpoint and ledger events, in one short local activity."""

from __future__ import annotations

from temporalio import activity

from activities.boundary import activity_boundary
from agent.dependencies import Dependencies
from agent.step_records import record_step as record
from contracts.envelopes import RecordStepInput, RecordStepResult


class StepRecordActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="record_step")
    async def record_step(self, request: RecordStepInput) -> RecordStepResult:
        async with activity_boundary(self.deps.attempts, heartbeat=False):
            return await record(self.deps, request)
