"""Crashes at random times, for every arm (a `random_time_crash` scenario).

A random crash at a (step, point) (experiments.trials.random_crash) lands only where the lab has
put a fault point. Here the process that runs the agent is SIGKILLed at a moment drawn uniformly
over the run, wherever the run then is: in a model call, a tool, a journal write, a checkpoint,
between two steps, in a workflow task.

The draw is a number in [0, 1), seeded by the trial's task and seed, never by its arm: every arm
of a trial dies the same way through its own run. It gives a moment `u`, that fraction of the
same arm's fault-free trial's run time, and the moment is placed on the crash run by the
fault-free run's model calls: `u` fell `offset` seconds after the fault-free run's n-th model call
started (n = 0: `u` from its start), so the crash run is killed `offset` seconds after its own
n-th model call starts. A machine busier or quieter than it was for the fault-free trial then
moves the moment with the run, where a moment counted from the start could fall after the end of
a faster run (71 of 204 did not fire in the core run when it was). A run that ends before its
moment is still not crashed: the trial is invalid, and the report says how many were. A
fault-free record made before model-call timelines were kept has none, and its crash is placed
as it was, `u` from the run's start (`TimedCrash.anchored` says which).

A run's model calls, the same way for every arm, found after it ends (nothing is added to the
run): a durable run's proposal activities, when the server scheduled them, from the workflow's
start event; a baseline's live model calls (`calls.jsonl`), from its first process's start. A crash
run waits for its n-th on the server's long poll of its history (no query: a query is work for
the worker the run shares its core with), or by reading its `calls.jsonl` every few tens of ms.

Which process: the baseline's own (each attempt is one); for a durable run, the worker that holds
it then: the one running its activity, else the one that ran its last workflow task (the worker
that caches its state).
"""

from __future__ import annotations

import bisect
import hashlib
import random
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle
from temporalio.service import RPCError

from agent import ops_world
from contracts import activity_names as named
from experiments.measure import effects_made
from experiments.trial_record import TimedCrash
from experiments.trials.random_crash import fault_free_trial

if TYPE_CHECKING:
    from experiments.trials.spec import Lab, TrialSpec


def time_draw(task_id: str, seed: int, draw: int = 1) -> float:
    """The trial's `draw`-th draw (a scenario's `draw`): its task and seed, not its arm."""
    digest = hashlib.sha256(f"random-time-crash:{task_id}:{seed}".encode()).hexdigest()
    stream = random.Random(digest)
    return [stream.random() for _ in range(draw)][-1]


# A step's model call: the durable run's proposal activity (workflows.calls.propose, with the last
# step's record), the baseline's live call of that name (baseline/loop.py).
DURABLE_MODEL_CALL = named.RECORD_THEN_PROPOSE
BASELINE_MODEL_CALL = "model"


def plan_timed_crash(spec: TrialSpec, lab: Lab) -> tuple[TimedCrash | None, str]:
    """The moment to kill the trial's run at, over the arm's fault-free trial of the same task
    and seed, placed by its model calls when it kept them; or why there is none."""
    free = fault_free_trial(spec, lab)
    if free is None:
        return None, "no fault-free trial of this arm, task and seed to draw the crash on"
    if free.infrastructure_error or free.wall_time_s <= 0:
        return None, "its fault-free trial has no run time to draw the crash on"
    draw = time_draw(spec.task.spec.id, spec.seed, spec.scenario.draw)
    crash = TimedCrash(draw=draw, run_s=free.wall_time_s, at_s=draw * free.wall_time_s)
    if free.run_started_at is None:  # an older record, with no timeline: the clock from the start
        return crash, ""
    calls, offset = anchor(free.model_calls_started_s, crash.at_s)
    return crash.model_copy(update={"after_model_call": calls, "offset_s": offset, "anchored": True}), ""


def anchor(timeline: Sequence[float], at_s: float) -> tuple[int, float]:
    """Where a moment `at_s` (seconds from a run's start) falls among the run's model calls (the
    seconds from its start at which each started): how many had started by then, and how long
    after the last of them it is (after the start, when none had)."""
    started = sorted(timeline)
    calls = bisect.bisect_right(started, at_s)
    return calls, at_s - (started[calls - 1] if calls else 0.0)


async def crash_moment(
    crash: TimedCrash, started_at: float, nth_call: Callable[[int], Awaitable[float | None]]
) -> float | None:
    """When (epoch seconds) to kill a run that started at `started_at`: `offset_s` after its own
    `after_model_call`-th model call started (`nth_call(n)` waits for it, None: the run ended
    first, and so does this); an unanchored crash `at_s` from the start."""
    if not crash.anchored:
        return started_at + crash.at_s
    if crash.after_model_call == 0:
        return started_at + crash.offset_s
    call = await nth_call(crash.after_model_call)
    return None if call is None else call + crash.offset_s


def _is_model_call(event: HistoryEvent) -> bool:
    # Scheduled, not started: an activity's ActivityTaskStarted event is written to the history
    # only when the attempt closes, too late for a crash run to wait on, while the scheduled
    # event is there as soon as the workflow task asking for the call completes, moments before
    # a worker takes it.
    return (
        event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == DURABLE_MODEL_CALL
    )


def _epoch_s(event: HistoryEvent) -> float:
    return event.event_time.ToNanoseconds() / 1e9


async def durable_timeline(handle: WorkflowHandle[Any, Any]) -> tuple[float | None, list[float]]:
    """A durable run's start (its workflow start event, epoch seconds) and its model calls' starts
    in seconds from it, read from its history after the run; (None, []) when it cannot be read."""
    started_at, calls = None, []
    try:
        async for event in handle.fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
                started_at = _epoch_s(event)
            elif _is_model_call(event):
                calls.append(_epoch_s(event))
    except RPCError:
        return None, []
    if started_at is None:
        return None, []
    return started_at, [call - started_at for call in calls]


async def durable_model_call(handle: WorkflowHandle[Any, Any], calls: int) -> float | None:
    """When (epoch seconds) a durable run's `calls`-th model call was scheduled, waited for on the
    server's long poll of its history; None when the run closed first."""
    seen = 0
    async for event in handle.fetch_history_events(wait_new_event=True):
        if _is_model_call(event):
            seen += 1
            if seen == calls:
                return _epoch_s(event)
    return None


async def holder_pid(handle: WorkflowHandle) -> int | None:
    """The pid of the worker that holds a durable run now: its running activity's, else its last
    workflow task's (a worker's identity is `pid@host`, the SDK's default)."""
    description = await handle.describe()
    if description.status != WorkflowExecutionStatus.RUNNING:
        return None
    identity = ""
    for activity in description.raw_description.pending_activities:
        if activity.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED and activity.last_worker_identity:
            identity = activity.last_worker_identity
    if not identity:
        async for event in handle.fetch_history_events():
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
                identity = event.workflow_task_started_event_attributes.identity
    pid = identity.split("@", 1)[0]
    return int(pid) if pid.isdigit() else None


def kill_worker(lab: Lab, pid: int) -> bool:
    """SIGKILL of the worker, its whole process group, as a crash (the pool starts another):
    False when it is no worker of the cluster's, or it had already gone."""
    for worker in lab.cluster.workers:
        if worker.pid == pid and worker.returncode is None:
            worker.kill()
            return True
    return False


async def effects_now(lab: Lab, spec: TrialSpec) -> int | None:
    """The effects the run has made in its world so far; None for a task with no service."""
    if ops_world.seed_file(spec.task.fixture_dir) is None:
        return None
    return effects_made(await ops_world.world_state(lab.cluster.dependencies.ops_url, spec.identity))
