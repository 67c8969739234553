"""The random-time kill at the end of a run: a durable run that ends between the look at its
holder and the kill, or a baseline's process that exits as its moment comes, is not crashed
(nothing of the run was left to recover)."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.client import WorkflowExecutionStatus

from experiments.trial_record import TimedCrash
from experiments.trials import durable_trial
from experiments.trials.baseline_trial import _run_process

WORKER_PID = 4242


class Worker:
    """A worker of the cluster's pool, as the killer sees it."""

    pid = WORKER_PID

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.killed_at: float | None = None

    def kill(self) -> None:
        self.killed_at = time.time()
        self.returncode = -9


class Run:
    """A durable run's handle: at step 3, its activity on the worker, closing at `closes` (None:
    never; "holder": just after the killer has looked up which worker holds it)."""

    def __init__(self, closes: str | None, worker: Worker) -> None:
        self.closes, self.worker = closes, worker
        self.closed_at: float | None = None

    async def query(self, *_: Any) -> SimpleNamespace:
        return SimpleNamespace(step=3)

    async def describe(self) -> SimpleNamespace:
        running = self.closed_at is None
        if running and self.closes == "holder":
            self.closed_at = time.time()  # it completes as this look returns
        elif running and self.closes == "after kill" and self.worker.killed_at is not None:
            self.closed_at = self.worker.killed_at + 0.5  # the killed worker's completion, landing late
            running = False
        activity = SimpleNamespace(
            state=PendingActivityState.PENDING_ACTIVITY_STATE_STARTED, last_worker_identity=f"{WORKER_PID}@host"
        )
        return SimpleNamespace(
            status=WorkflowExecutionStatus.RUNNING if running else WorkflowExecutionStatus.COMPLETED,
            close_time=None if running else datetime.fromtimestamp(self.closed_at or 0.0, tz=UTC),
            raw_description=SimpleNamespace(pending_activities=[activity]),
        )


async def _kill(closes: str | None, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Worker]:
    async def two_effects(*_: Any) -> int:
        return 2

    monkeypatch.setattr(durable_trial, "effects_now", two_effects)
    worker = Worker()
    lab = SimpleNamespace(cluster=SimpleNamespace(workers=[worker]))
    crash = TimedCrash(draw=0.0, run_s=1.0, at_s=0.0)
    spec, handle = SimpleNamespace(), Run(closes, worker)  # what _kill_at reads of a spec and a handle
    killed = await durable_trial._kill_at(spec, lab, handle, crash, time.time(), asyncio.Event())  # type: ignore[arg-type]
    return killed, worker


async def test_a_run_that_ends_before_the_kill_lands_is_not_crashed(monkeypatch: pytest.MonkeyPatch) -> None:
    killed, worker = await _kill("holder", monkeypatch)
    assert worker.killed_at is not None  # its worker did die,
    assert killed is None  # but after the run's end: the trial's run ended before its crash moment


async def test_a_run_still_running_at_the_kill_is_crashed_at_its_step(monkeypatch: pytest.MonkeyPatch) -> None:
    killed, worker = await _kill(None, monkeypatch)
    assert killed is not None and worker.killed_at is not None
    killed_at, step, effects = killed
    assert killed_at >= worker.killed_at and (step, effects) == (3, 2)


async def test_a_run_that_closes_after_the_kill_was_crashed(monkeypatch: pytest.MonkeyPatch) -> None:
    # Closed on the server after the kill (the killed worker's last word, or another's): the kill
    # came first, and the run's close is its recovery.
    killed, _ = await _kill("after kill", monkeypatch)
    assert killed is not None and killed[1] == 3


class ExitedProcess:
    """A baseline's process that exited at its crash's moment: its transport is closed, so a kill
    finds no process, while the wait on it has not been seen to end yet."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.exited = asyncio.Event()

    def kill(self) -> None:
        self.returncode = 0
        self.exited.set()
        raise ProcessLookupError

    async def wait(self) -> int:
        await self.exited.wait()
        return 0


async def test_a_baseline_that_exits_as_its_moment_comes_is_not_crashed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    process = ExitedProcess()

    async def start(*_: Any, **__: Any) -> ExitedProcess:
        return process

    monkeypatch.setattr(asyncio, "create_subprocess_exec", start)
    crash = TimedCrash(draw=0.0, run_s=1.0, at_s=0.0)  # its moment: at once
    code, killed_at, _ = await _run_process(["agent"], {}, tmp_path / "stderr.log", tmp_path, crash)
    assert (code, killed_at) == (0, None)  # ended first: no crash, and no infrastructure failure
