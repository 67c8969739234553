"""Runs kept going while workers are killed and the server restarted at random."""

from __future__ import annotations

import asyncio
import itertools
import random
import socket
import sys
import time
from datetime import timedelta

from rich import progress as rich_progress
from rich.console import Console
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client, WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import WorkflowAlreadyStartedError
from temporalio.service import RPCError

from contracts import RunRequest, RunResult
from experiments.harness import LabCluster
from experiments.soak.recovery import HeldActivity, Kill
from experiments.soak.report import RunProblem
from experiments.trials.durable_trial import approve_what_waits
from lab.runs.catalog import Task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

# A run this much longer than any task takes under faults is stuck: counted, not waited for.
RUN_TIMEOUT_S = 600
# How long a kill waits to learn which activities its victim runs.
HELD_TIMEOUT = timedelta(seconds=1)


class Soak:
    def __init__(self, cluster: LabCluster, tasks: list[Task], rng: random.Random) -> None:
        self.cluster = cluster
        self.tasks = itertools.cycle(tasks)
        self.rng = rng
        self.kills: list[Kill] = []
        self.restarts: list[float] = []
        self.finished: list[tuple[Task, RunRequest, RunResult]] = []
        self.unfinished: list[RunProblem] = []
        self.chaos_done = asyncio.Event()
        self.in_flight: dict[str, WorkflowHandle[AgentRunWorkflow, RunResult]] = {}

    @property
    def client(self) -> Client:
        assert self.cluster.client is not None
        return self.cluster.client

    async def chaos(self, kills: int, restarts: int, gap_s: tuple[float, float]) -> None:
        """Kills and restarts in a random order, at random gaps."""
        events = ["kill"] * kills + ["restart"] * restarts
        self.rng.shuffle(events)
        with _Progress(len(events)) as shown:
            for event in events:
                await asyncio.sleep(self.rng.uniform(*gap_s))
                if event == "restart":
                    self.restarts.append(time.time())
                    await self.cluster.restart_server()
                else:
                    await self._kill_one()
                shown.advance(f"{len(self.kills)} kills, {len(self.restarts)} restarts, {len(self.finished)} runs done")
        self.chaos_done.set()

    async def _kill_one(self) -> None:
        # Only while another worker polls: a kill is then a failover, timed by Temporal, not by
        # how long a new worker process takes to start (about 3 s of imports on 2 cores).
        while len(alive := [w for w in self.cluster.workers if w.returncode is None and w.pid is not None]) < 2:
            await asyncio.sleep(0.05)
        victim = self.rng.choice(alive)
        identity = f"{victim.pid}@{socket.gethostname()}"
        held = await self._held_by(identity)
        self.kills.append(Kill(at=time.time(), identity=identity, held=held))
        victim.kill()

    async def _held_by(self, identity: str) -> list[HeldActivity]:
        """The activity attempts a worker is running, by the server's account: what a kill of
        it hits (empty when the server does not answer in time, e.g. while it restarts)."""

        async def held_in(workflow_id: str) -> list[HeldActivity]:
            described = await self.in_flight[workflow_id].describe(rpc_timeout=HELD_TIMEOUT)
            return [
                HeldActivity(workflow_id=workflow_id, activity_id=pending.activity_id, attempt=pending.attempt)
                for pending in described.raw_description.pending_activities
                if pending.state == PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
                and pending.last_worker_identity == identity
            ]

        found = await asyncio.gather(*(held_in(w) for w in list(self.in_flight)), return_exceptions=True)
        return [activity for each in found if isinstance(each, list) for activity in each]

    async def keep_running(self) -> None:
        """Runs one after another, until the chaos is over."""
        while not self.chaos_done.is_set():
            task = next(self.tasks)
            request = build_request(task, "durable")
            handle = await self._start(request)
            self.in_flight[request.run_id] = handle
            approver = asyncio.create_task(approve_what_waits(handle))
            try:
                async with asyncio.timeout(RUN_TIMEOUT_S):
                    result = await self._result(handle)
            except TimeoutError:
                unfinished = RunProblem(run_id=request.run_id, task_id=task.spec.id, problem="never finished")
                self.unfinished.append(unfinished)
                continue
            except WorkflowFailureError as error:
                # A workflow that failed without a run result (a bug the soak exists to find):
                # counted with its cause, and the soak goes on.
                cause = error.cause or error
                said = f"its workflow failed: {type(cause).__name__}: {str(cause).splitlines()[0][:300]}"
                self.unfinished.append(RunProblem(run_id=request.run_id, task_id=task.spec.id, problem=said))
                continue
            finally:
                approver.cancel()
                del self.in_flight[request.run_id]
            self.finished.append((task, request, result))

    async def _start(self, request: RunRequest) -> WorkflowHandle[AgentRunWorkflow, RunResult]:
        while True:
            try:
                return await start_durable_run(self.client, request)
            except WorkflowAlreadyStartedError:  # an earlier attempt reached the server
                return self.client.get_workflow_handle_for(AgentRunWorkflow.run, request.run_id)
            except RPCError:
                await asyncio.sleep(0.5)  # the server restarting

    async def _result(self, handle: WorkflowHandle[AgentRunWorkflow, RunResult]) -> RunResult:
        while True:
            try:
                return await run_result(handle)
            except RPCError:
                await asyncio.sleep(0.5)

    async def histories(self) -> dict[str, list[HistoryEvent]]:
        """The events of every generation of every run (a run that continued as new has several,
        each numbering its events from 1), by `WORKFLOW_ID/RUN_ID`."""
        found: dict[str, list[HistoryEvent]] = {}
        for _, request, _ in self.finished:
            async for run in self.client.list_workflows(f'WorkflowId = "{request.run_id}"'):
                handle = self.client.get_workflow_handle(run.id, run_id=run.run_id)
                found[f"{run.id}/{run.run_id}"] = [event async for event in handle.fetch_history_events()]
        return found


class _Progress:
    """A live bar on a terminal; otherwise a line at every tenth of the way (a log, CI)."""

    def __init__(self, total: int) -> None:
        self._total, self._done = total, 0
        console = Console(stderr=True)
        self._bar = (
            rich_progress.Progress(
                rich_progress.BarColumn(),
                rich_progress.MofNCompleteColumn(),
                rich_progress.TextColumn("{task.description}"),
                rich_progress.TimeElapsedColumn(),
                console=console,
            )
            if console.is_terminal
            else None
        )
        self._task = self._bar.add_task("", total=total) if self._bar else None

    def __enter__(self) -> _Progress:
        if self._bar:
            self._bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar:
            self._bar.stop()

    def advance(self, said: str) -> None:
        self._done += 1
        if self._bar is not None and self._task is not None:
            self._bar.update(self._task, advance=1, description=said)
        elif self._done == self._total or self._done % max(self._total // 10, 1) == 0:
            print(f"  {self._done}/{self._total}: {said}", file=sys.stderr, flush=True)
