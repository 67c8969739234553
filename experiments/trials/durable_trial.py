"""The durable run of a trial: a workflow on the cluster's dev server, its approvals given by the
experiment, the server restarted when the scenario says; and, after a kill, how long until
another worker took over."""

from __future__ import annotations

import asyncio
import contextlib
import time

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle, WorkflowQueryFailedError, WorkflowUpdateFailedError
from temporalio.service import RPCError

from contracts import Approve, RunRequest, RunResult, Usage
from experiments.config import FaultKind
from experiments.trial_record import TimedCrash
from experiments.trials.outcome import TrialOutcome
from experiments.trials.random_time_crash import crash_moment, durable_model_call, effects_now, holder_pid, kill_worker
from experiments.trials.spec import Lab, TrialSpec
from lab.runs.durable_start import start_durable_run
from workflows import AgentRunWorkflow
from workflows.outcome import run_result


async def run_durable(spec: TrialSpec, lab: Lab, request: RunRequest, crash: TimedCrash | None = None) -> TrialOutcome:
    """`crash`: a random-time crash to kill the run at (None: none)."""
    client = lab.cluster.client
    if client is None:
        raise RuntimeError("the cluster has no client")
    started = time.time()
    handle = await start_durable_run(client, request)
    approver = asyncio.create_task(approve_what_waits(handle))
    killing = asyncio.Event()
    killer = asyncio.create_task(_kill_at(spec, lab, handle, crash, started, killing)) if crash is not None else None
    try:
        restarted_at = None
        if spec.scenario.kind == FaultKind.SERVER_RESTART:
            while (await handle.query(AgentRunWorkflow.progress, 1_000_000)).step < spec.scenario.after_step:
                await asyncio.sleep(0.05)
            restarted_at = time.time()
            await lab.cluster.restart_server()
        result = await run_result(handle)
    finally:
        approver.cancel()
        killed = await _killed(killer, killing) if killer is not None else None
    outcome = TrialOutcome(result=result, run_ids=[request.run_id], lost=Usage(), server_restarted_at=restarted_at)
    if killed is not None:
        outcome.killed_at, outcome.killed_step, outcome.effects_at_kill = killed
    return outcome


async def _killed(
    killer: asyncio.Task[tuple[float, int | None, int | None] | None], killing: asyncio.Event
) -> tuple[float, int | None, int | None] | None:
    """What the killer did: before its moment it is called off (the run ended first: not
    crashed); past it, it is killing or has killed, and is let finish."""
    if not killing.is_set():
        killer.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        return await killer
    return None


async def _kill_at(
    spec: TrialSpec,
    lab: Lab,
    handle: WorkflowHandle[AgentRunWorkflow, RunResult],
    crash: TimedCrash,
    started: float,
    killing: asyncio.Event,
) -> tuple[float, int | None, int | None] | None:
    """SIGKILL of the worker that holds the run at the crash's moment (`killing` set once it is
    reached): when it died, the step the run was at, the effects in its world; None when no
    worker held it, or the run ended first (before the moment, or before the kill landed)."""
    moment = await crash_moment(crash, started, lambda calls: durable_model_call(handle, calls))
    if moment is None:
        return None
    await asyncio.sleep(max(0.0, moment - time.time()))
    killing.set()
    try:
        step: int | None = (await handle.query(AgentRunWorkflow.progress, 1_000_000)).step
    except (RPCError, WorkflowQueryFailedError):
        step = None
    pid = await holder_pid(handle)
    if pid is None or not kill_worker(lab, pid):
        return None
    killed_at = time.time()
    if await _closed_by(handle, killed_at):
        # The run ended between the look at its holder and the kill: the worker died with no
        # work of the run's left, which is no crash of it (and nothing after the kill to
        # recover), so the trial is one whose run ended before its crash moment.
        return None
    return killed_at, step, await effects_now(lab, spec)


async def _closed_by(handle: WorkflowHandle[AgentRunWorkflow, RunResult], moment: float) -> bool:
    """Whether the run had closed by `moment` (epoch seconds), on the server's clock (the same
    machine's); False when the server cannot say."""
    try:
        description = await handle.describe()
    except RPCError:
        return False
    return description.close_time is not None and description.close_time.timestamp() <= moment


# How often the experiment's person looks: soon after a run starts, then less and less often up
# to once a second. Every look is a query the worker answers; asked five times a second for a
# whole trial, those took about 8% of a core from a local model's two threads and made the
# durable runtime's model calls 10% slower than the baseline's (docs/models.md).
APPROVER_FIRST_LOOK_S, APPROVER_MOST_S = 0.1, 1.0


async def approve_what_waits(handle: WorkflowHandle[AgentRunWorkflow, RunResult]) -> None:
    """The experiment's person: approves each proposal the run waits on, once it is asked."""
    pause = APPROVER_FIRST_LOOK_S
    while True:
        await asyncio.sleep(pause)
        pause = min(pause * 2, APPROVER_MOST_S)
        try:
            pending = await handle.query(AgentRunWorkflow.pending_approval)
            if pending is not None:
                await handle.execute_update(
                    AgentRunWorkflow.approve, Approve(approver="experiment", arguments_sha256=pending.arguments_sha256)
                )
                pause = APPROVER_FIRST_LOOK_S
        except (RPCError, WorkflowUpdateFailedError):
            continue  # the server restarting, or the run moved on meanwhile


_AT_WORK = {
    EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED,
    EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED,
}


async def durable_recovery(lab: Lab, run_id: str, killed_at: float | None) -> float | None:
    """From the kill to the run back at work: the first activity or workflow task to start after
    it (on another worker: the killed one's activity retried, or its cached workflow taken over),
    else the run's end (it had no work left), as a baseline's recovery is its first live call at
    the step it was killed in (experiments.trials.baseline_trial)."""
    if killed_at is None or lab.cluster.client is None:
        return None
    async for event in lab.cluster.client.get_workflow_handle(run_id).fetch_history_events():
        if event.event_type not in _AT_WORK:
            continue
        when = event.event_time.ToDatetime().timestamp()
        if when > killed_at:
            return when - killed_at
    return None
