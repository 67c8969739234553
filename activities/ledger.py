"""The `append_ledger` activity: a workflow's ledger entries, appended by whichever worker runs it."""

from __future__ import annotations

import asyncio
import os
import socket

from pydantic import BaseModel, ConfigDict, model_validator
from temporalio import activity

from activities.errors import LedgerCorrupt, to_application_error
from agent.ledger.store import AppendResult, append, check_run_id
from contracts.ledger import LedgerEntry


class AppendLedgerInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str
    entries: list[LedgerEntry]

    @model_validator(mode="after")
    def _one_run(self) -> AppendLedgerInput:
        # Checked where the input is built (workflow code), not after a round trip to a worker.
        check_run_id(self.run_id)
        strays = sorted({entry.run_id for entry in self.entries} - {self.run_id})
        if strays:
            raise ValueError(f"entries of run(s) {strays} in an append to run {self.run_id!r}")
        return self


@activity.defn
async def append_ledger(request: AppendLedgerInput) -> AppendResult:
    try:
        # flock, read, write and fsync block: in a thread, the worker's event loop keeps running.
        return await asyncio.to_thread(append, request.run_id, request.entries, worker_name())
    except LedgerCorrupt as error:
        raise to_application_error(error) from None


def worker_name() -> str:
    """Host and process: which of several workers wrote a line."""
    return f"{socket.gethostname()}:{os.getpid()}"
