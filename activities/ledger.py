"""The `append_ledger` activity: a workflow's ledger entries, appended by whichever worker runs it."""

from __future__ import annotations

import asyncio

from temporalio import activity

from activities.boundary import activity_boundary
from agent.dependencies import Dependencies
from agent.ledger import worker_name
from contracts.envelopes import AppendLedgerInput, AppendLedgerResult


class LedgerActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="append_ledger")
    async def append_ledger(self, request: AppendLedgerInput) -> AppendLedgerResult:
        async with activity_boundary(self.deps.attempts, heartbeat=False):
            # flock, read, write and fsync block: in a thread, the worker's event loop keeps running.
            return await asyncio.to_thread(self.deps.ledgers.append, request.run_id, request.entries, worker_name())
