"""Closing a step: the workspace checkpoint (commit, or roll back) and its ledger events, in one
short local activity, so a durable step pays one extra round trip for both, not two.

Both halves are idempotent: a commit already made for this step is found by its trailer, and
ledger events already appended are skipped by id. A retry after a crash repeats nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

from pydantic import BaseModel
from temporalio import activity

from activities.errors import to_application_error
from activities.ledger import AppendLedgerInput, append_ledger
from agent import checkpoints
from contracts.ledger import LedgerEntry


class RecordStepInput(BaseModel):
    run_id: str
    workspace: str
    step: int
    # commit: checkpoint the workspace; rollback: back to `checkpoint`; none: ledger only.
    action: Literal["commit", "rollback", "none"]
    checkpoint: str
    message: str = ""
    entries: list[LedgerEntry]


class RecordStepResult(BaseModel):
    checkpoint: str


@activity.defn
async def record_step(request: RecordStepInput) -> RecordStepResult:
    workspace = Path(request.workspace)
    checkpoint = request.checkpoint
    entries = list(request.entries)
    time = entries[-1].time if entries else None
    try:
        if request.action == "commit":
            checkpoint = await asyncio.to_thread(checkpoints.checkpoint, workspace, request.step, request.message)
        elif request.action == "rollback":
            await asyncio.to_thread(checkpoints.rollback, workspace, request.checkpoint)
    except checkpoints.CheckpointError as error:
        raise to_application_error(error) from None
    if request.action != "none" and time is not None:
        entries.append(
            LedgerEntry(
                event_id=f"{request.run_id}/step-{request.step}/{request.action}",
                type=request.action,
                run_id=request.run_id,
                time=time,
                step=request.step,
                payload={"checkpoint": checkpoint},
            )
        )
    await append_ledger(AppendLedgerInput(run_id=request.run_id, entries=entries))
    return RecordStepResult(checkpoint=checkpoint)
