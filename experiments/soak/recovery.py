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


def kill_recoveries(kills: Sequence[Kill], histories: dict[str, list[HistoryEvent]]) -> list[float]:
    """Per kill that hit a run's work, the longest any such run took to go on.

    A run was hit when the last worker to take up its work before the kill was the one killed,
    or when an activity scheduled before the kill had to start again after it (history keeps
    only an activity's last attempt, so the killed attempt itself is not in it). It goes on at
    its first workflow or activity task started after the kill."""
    recoveries = []
    for kill in kills:
        waits = []
        for events in histories.values():
            if not events or when(events[0]) > kill.at or when(events[-1]) < kill.at:
                continue
            before = [e for e in events if e.event_type in _STARTED and when(e) <= kill.at]
            after = [e for e in events if e.event_type in _STARTED and when(e) > kill.at]
            if not after:
                continue
            hit = bool(before) and _identity(before[-1]) == kill.identity
            retried = [
                e
                for e in after
                if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
                and e.activity_task_started_event_attributes.attempt > 1
                and _scheduled_before(events, e, kill.at)
            ]
            if retried:
                waits.append(when(retried[0]) - kill.at)
            elif hit:
                waits.append(when(after[0]) - kill.at)
        if waits:
            recoveries.append(max(waits))
    return recoveries


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
