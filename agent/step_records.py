"""Closing a step: the workspace checkpoint (commit, or roll back) and its ledger events, in one
call (a short local activity in the durable runtime: one round trip for both, not two).

Both halves are idempotent: a commit already made for this step is found by its trailer, and
ledger events already appended are skipped by id. A retry after a crash repeats nothing.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent import checkpoints, ledger
from agent.conversation import store_turn
from contracts.envelopes import RecordStepInput, RecordStepResult
from contracts.ledger import LedgerEntry


async def record_step(request: RecordStepInput) -> RecordStepResult:
    workspace = Path(request.workspace)
    checkpoint = request.checkpoint
    entries = list(request.entries)
    time = entries[-1].time if entries else None
    if request.action == "commit":
        checkpoint = await asyncio.to_thread(checkpoints.checkpoint, workspace, request.step, request.message)
    elif request.action == "rollback":
        await asyncio.to_thread(checkpoints.rollback, workspace, request.checkpoint)
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
    # flock, read, write and fsync block: in a thread, the event loop keeps running.
    await asyncio.to_thread(ledger.append, request.run_id, entries, ledger.worker_name())
    conversation = None
    if request.turn is not None:
        conversation = await asyncio.to_thread(store_turn, request.previous, request.turn)
    return RecordStepResult(checkpoint=checkpoint, conversation=conversation)
