"""Closing a step: the workspace checkpoint (commit, or roll back) and its ledger events, in one
call (a short local activity in the durable runtime: one round trip for both, not two).

Both halves are idempotent: a commit already made for this step is found by its trailer, and
ledger events already appended are skipped by id. A retry after a crash repeats nothing.

A step that cannot have changed the workspace (no tool ran, or only a tool that reads) makes
no git call: its checkpoint is the one before it, and there is nothing to roll back. Reading is
most of an agent's steps, and a commit costs two git processes and a walk of the workspace.
A checkpoint that left something out (a file over its size cap, a FIFO) says so in the step's
turn, so the model reads it with the step's outcome, and in the ledger's commit event.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from pydantic import JsonValue

from agent import checkpoints, disk_use, ledger
from agent.conversation import store_turn
from agent.dependencies import Dependencies
from agent.tools.registry import READ_ONLY_TOOLS
from contracts.envelopes import RecordStepInput, RecordStepResult
from contracts.ledger import LedgerEntry
from contracts.provider import Turn


async def record_step(deps: Dependencies, request: RecordStepInput) -> RecordStepResult:
    workspace = Path(request.workspace)
    checkpoint = request.checkpoint
    entries = list(request.entries)
    time = entries[-1].time if entries else None
    turn = request.turn
    payload: dict[str, JsonValue] = {}
    if request.action == "commit" and not _left_unchanged(entries):
        made = await asyncio.to_thread(
            checkpoints.checkpoint, deps.checkpoints, workspace, request.step, request.message
        )
        checkpoint = made.commit
        note = made.note()
        if note is not None:
            # The model learns it with the step's outcome: what a later rollback would remove.
            payload["left_out"] = [entry.path for entry in made.left_out]
            if turn is not None:
                turn = turn.model_copy(update={"feedback": f"{turn.feedback}\n{note}".strip()})
    elif request.action == "rollback" and not _left_unchanged(entries):
        await asyncio.to_thread(checkpoints.rollback, deps.checkpoints, workspace, request.checkpoint)
    disk = None
    if request.action != "none" and not _left_unchanged(entries):
        # After the git call: what the workspace and its checkpoints hold now, for the run's
        # host-disk budget (a step that only read changed neither, and is not measured).
        disk = await asyncio.to_thread(disk_use.measure, deps.checkpoints, workspace)
    if request.action != "none" and time is not None:
        entries.append(
            LedgerEntry(
                event_id=f"{request.run_id}/step-{request.step}/{request.action}",
                type=request.action,
                run_id=request.run_id,
                time=time,
                step=request.step,
                payload={"checkpoint": checkpoint, **payload},
            )
        )
    # flock, read, write and fsync block: in a thread (one hop for both), the event loop keeps running.
    conversation = await asyncio.to_thread(_write, deps, request, entries, turn)
    return RecordStepResult(checkpoint=checkpoint, conversation=conversation, disk=disk)


def _write(deps: Dependencies, request: RecordStepInput, entries: list[LedgerEntry], turn: Turn | None) -> str | None:
    """The step's ledger events, then its turn: the reference of the task's conversation after it."""
    deps.ledgers.append(request.run_id, entries, ledger.worker_name())
    return store_turn(deps.artifacts, request.previous, turn) if turn is not None else None


def _left_unchanged(entries: list[LedgerEntry]) -> bool:
    """No tool ran in the step, or only one that reads (in-process, read-only by construction).
    A check that ran (a test suite) may leave caches behind: those the next commit takes along,
    or the next rollback removes, as before."""
    ran = [entry.payload.get("tool") for entry in entries if entry.type == "tool_result"]
    return all(isinstance(name, str) and name in READ_ONLY_TOOLS for name in ran)
