"""The `append_ledger` activity: a workflow's ledger entries, appended by whichever worker runs it."""

from __future__ import annotations

import asyncio

from temporalio import activity

from activities.boundary import activity_boundary
from agent.ledger import append, worker_name
from contracts.envelopes import AppendLedgerInput, AppendLedgerResult


@activity.defn
async def append_ledger(request: AppendLedgerInput) -> AppendLedgerResult:
    async with activity_boundary(heartbeat=False):
        # flock, read, write and fsync block: in a thread, the worker's event loop keeps running.
        return await asyncio.to_thread(append, request.run_id, request.entries, worker_name())
