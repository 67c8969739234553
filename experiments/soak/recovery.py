"""How long a run took to go on after a kill or a server restart, from its history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC

from pydantic import BaseModel
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

# Events that mean a worker took up the run's work: where a run goes on after a kill.
_STARTED = (EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)


class Kill(BaseModel):
    at: float
    identity: str


class Recovered(BaseModel):
    """A kill that hit a run's work, and the run that took longest to go on after it."""

    at: float
    identity: str
    run: str
    wait_s: float
    # What started that run's work again: an activity's retry, or the run's next task.
    resumed_by: str


def kill_recoveries(kills: Sequence[Kill], histories: dict[str, list[HistoryEvent]]) -> list[Recovered]:
    """Per kill that hit a run's work, the longest any such run took to go on.

    A run was hit when the last worker to take up its work before the kill was the one killed,
    or when an activity in flight at the kill (scheduled before it, not yet started again) had
    to start again after it (history keeps only an activity's last attempt, so the killed
    attempt itself is not in it). It goes on at its first workflow or activity task started
    after the kill."""
    recovered = []
    for kill in kills:
        worst: Recovered | None = None
        for run, events in histories.items():
            if not events or when(events[0]) > kill.at or when(events[-1]) < kill.at:
                continue
            before = [e for e in events if e.event_type in _STARTED and when(e) <= kill.at]
            after = [e for e in events if e.event_type in _STARTED and when(e) > kill.at]
            if not after:
                continue
            first = after[0]
            retried = first.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED and (
                first.activity_task_started_event_attributes.attempt > 1 and _scheduled_before(events, first, kill.at)
            )
            if not retried and not (before and _identity(before[-1]) == kill.identity):
                continue
            wait = when(first) - kill.at
            if worst is None or wait > worst.wait_s:
                resumed_by = EventType.Name(first.event_type)
                worst = Recovered(at=kill.at, identity=kill.identity, run=run, wait_s=wait, resumed_by=resumed_by)
        if worst is not None:
            recovered.append(worst)
    return recovered


def restart_recoveries(restarts: Sequence[float], histories: dict[str, list[HistoryEvent]]) -> list[float]:
    """Per restart, from stopping the server to the first task any run started after it."""
    starts = sorted(when(e) for events in histories.values() for e in events if e.event_type in _STARTED)
    return [next((t - at for t in starts if t > at), float("nan")) for at in restarts]


def when(event: HistoryEvent) -> float:
    return event.event_time.ToDatetime(tzinfo=UTC).timestamp()


def _identity(event: HistoryEvent) -> str:
    if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        return event.workflow_task_started_event_attributes.identity
    return event.activity_task_started_event_attributes.identity


def _scheduled_before(events: list[HistoryEvent], started: HistoryEvent, at: float) -> bool:
    scheduled_id = started.activity_task_started_event_attributes.scheduled_event_id
    return any(e.event_id == scheduled_id and when(e) <= at for e in events)
