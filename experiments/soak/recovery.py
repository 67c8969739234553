"""How long a run took to go on after a kill or a server restart, from its history."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC

from pydantic import BaseModel, Field
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent

# Events that mean a worker took up the run's work: where a run goes on after a kill.
_STARTED = (EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED, EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED)


class HeldActivity(BaseModel):
    """An activity attempt the killed worker was running, as the server saw it just before."""

    workflow_id: str
    activity_id: str
    attempt: int


class Kill(BaseModel):
    at: float
    identity: str
    held: list[HeldActivity] = Field(default_factory=list)


class Recovered(BaseModel):
    """A kill that hit a run's work, and the run that took longest to go on after it."""

    at: float
    identity: str
    run: str
    wait_s: float
    # What started that run's work again: an activity's retry, or the run's next task.
    resumed_by: str
    # The attempt of the run's activity the kill ended, when it held one: the retry of attempt
    # N waits for the retry policy's Nth backoff (0.1, 0.4, 1.6, 6.4 s, then the cap) after the
    # heartbeat timeout, so kills that land on the same activity again and again wait longer.
    attempt: int | None = None


class KillRecoveries(BaseModel):
    timed: list[Recovered] = Field(default_factory=list)
    # Kills whose held activity failed again after its first retry: history keeps only an
    # activity's last attempt, so when the first retry started is not known.
    retried_again: int = 0


def kill_recoveries(kills: Sequence[Kill], histories: dict[str, list[HistoryEvent]]) -> KillRecoveries:
    """Per kill that hit a run's work, the longest any such run took to go on.

    A run was hit when the killed worker held one of its activities (`Kill.held`, from the
    server just before the kill), or was the last worker to take up its work before the kill.
    A held activity goes on when its next attempt starts; any other hit run at its first
    workflow or activity task started after the kill. An activity retrying for its own
    reasons (a service down) is not charged to kills that did not hold it."""
    found = KillRecoveries()
    for kill in kills:
        worst: Recovered | None = None
        retried_again = False
        for run, events in histories.items():
            if not events or when(events[0]) > kill.at or when(events[-1]) < kill.at:
                continue
            held = [h for h in kill.held if run.split("/")[0] == h.workflow_id]
            after = next((e for e in events if e.event_type in _STARTED and when(e) > kill.at), None)
            attempt = None
            if held:
                first, attempt = _held_restarted(events, held, kill.at)
                if first is None and _retried_again(events, held):
                    retried_again = True
                    continue
                first = first or after
            else:
                before = [e for e in events if e.event_type in _STARTED and when(e) <= kill.at]
                if not (before and _identity(before[-1]) == kill.identity):
                    continue
                first = after
            if first is None:
                continue
            wait = when(first) - kill.at
            if worst is None or wait > worst.wait_s:
                resumed_by = EventType.Name(first.event_type)
                worst = Recovered(
                    at=kill.at, identity=kill.identity, run=run, wait_s=wait, resumed_by=resumed_by, attempt=attempt
                )
        if worst is not None:
            found.timed.append(worst)
        elif retried_again:
            found.retried_again += 1
    return found


def _held_restarted(
    events: list[HistoryEvent], held: list[HeldActivity], at: float
) -> tuple[HistoryEvent | None, int | None]:
    """The started event of a held activity's next attempt, when history shows that attempt,
    and the attempt the kill ended."""
    for activity in held:
        started = _started_of(events, activity.activity_id)
        next_attempt = started is not None and started.activity_task_started_event_attributes.attempt
        if started is not None and when(started) > at and next_attempt == activity.attempt + 1:
            return started, activity.attempt
    return None, None


def _retried_again(events: list[HistoryEvent], held: list[HeldActivity]) -> bool:
    for activity in held:
        started = _started_of(events, activity.activity_id)
        if started is not None and started.activity_task_started_event_attributes.attempt > activity.attempt + 1:
            return True
    return False


def _started_of(events: list[HistoryEvent], activity_id: str) -> HistoryEvent | None:
    scheduled = {
        e.event_id
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and e.activity_task_scheduled_event_attributes.activity_id == activity_id
    }
    return next(
        (
            e
            for e in events
            if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
            and e.activity_task_started_event_attributes.scheduled_event_id in scheduled
        ),
        None,
    )


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
