"""Ledger entries for what the workflow decided. Pure: event ids are deterministic (run, step,
type), so a replayed workflow or a retried activity appends nothing twice."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, JsonValue

from contracts import RunRequest, RunSnapshot
from contracts.ledger import EventType, LedgerEntry


class EntryMaker:
    def __init__(self, run_id: str) -> None:
        self.run_id = run_id

    def entry(
        self,
        kind: EventType,
        time: datetime,
        step: int | None = None,
        *,
        where: str | None = None,
        **payload: JsonValue | BaseModel | None,
    ) -> LedgerEntry:
        """`where` names the event's place when a run has several of its type outside any step
        (a subtask's end, `plan-v1/fix-parser`; a plan's revision, `plan-v2`)."""
        where = where or (f"step-{step}" if step is not None else "run")
        return LedgerEntry(
            event_id=f"{self.run_id}/{where}/{kind}",
            type=kind,
            run_id=self.run_id,
            time=time,
            step=step,
            payload={key: _json(value) for key, value in payload.items() if value is not None},
        )


def _json(value: JsonValue | BaseModel) -> JsonValue:
    return value.model_dump(mode="json") if isinstance(value, BaseModel) else value


def about_run(request: RunRequest, snapshot: RunSnapshot) -> dict[str, JsonValue | BaseModel]:
    """What a run's opening event (run_started, forked) says of it: its task and runtime, where
    it works and from which checkpoint, and which model, weights and seed (no secret)."""
    return {
        "task": request.task_id,
        "runtime": request.runtime,
        "workspace": snapshot.workspace,
        "checkpoint": snapshot.checkpoint,
        "provider": request.provider,
    }
