"""Crashes at random times, for every arm (a `random_time_crash` scenario).

A random crash at a (step, point) (experiments.trials.random_crash) lands only where the lab has
put a fault point. Here the process that runs the agent is SIGKILLed at a moment drawn uniformly
over the run, wherever the run then is: in a model call, a tool, a journal write, a checkpoint,
between two steps, in a workflow task. The moment is a fraction of the same arm's fault-free
trial's run time (task and seed), drawn once per trial, so that every arm of a trial dies the
same way through its own run. A run that ends before its moment is not crashed: the trial is
invalid, and the report says how many were (the fraction is drawn over the fault-free run, and a
run under load can be faster or slower than it was).

Which process: the baseline's own (each attempt is one); for a durable run, the worker that holds
it then: the one running its activity, else the one that ran its last workflow task (the worker
that caches its state).
"""

from __future__ import annotations

import hashlib
import random
from typing import TYPE_CHECKING

from temporalio.api.enums.v1 import EventType, PendingActivityState
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle

from agent import ops_world
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


def plan_timed_crash(spec: TrialSpec, lab: Lab) -> tuple[TimedCrash | None, str]:
    """The moment to kill the trial's run at, over the arm's fault-free trial of the same task
    and seed; or why there is none."""
    free = fault_free_trial(spec, lab)
    if free is None:
        return None, "no fault-free trial of this arm, task and seed to draw the crash on"
    if free.infrastructure_error or free.wall_time_s <= 0:
        return None, "its fault-free trial has no run time to draw the crash on"
    draw = time_draw(spec.task.spec.id, spec.seed, spec.scenario.draw)
    return TimedCrash(draw=draw, run_s=free.wall_time_s, at_s=draw * free.wall_time_s), ""


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
