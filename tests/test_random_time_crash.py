"""Random-time crashes for every arm: the process that runs the agent SIGKILLed at a moment drawn
uniformly over the arm's fault-free run, wherever the run then is, with one draw for every arm of
a trial."""

from __future__ import annotations

import asyncio
import os
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import ValidationError
from temporalio import activity, workflow
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from contracts import activity_names as named
from experiments.config import ExperimentConfig, FaultKind, FaultScenario
from experiments.runner import run_experiment
from experiments.trial_record import TimedCrash, TrialRecord
from experiments.trials.baseline_trial import _run_process, model_calls_at
from experiments.trials.random_time_crash import (
    anchor,
    crash_moment,
    durable_model_call,
    durable_timeline,
    plan_timed_crash,
    time_draw,
)
from experiments.trials.spec import TrialSpec
from lab.runs.catalog import load_task

CRASH = FaultScenario(name="crash", kind=FaultKind.RANDOM_TIME_CRASH)


def _free(
    runtime: str, wall_time_s: float, error: str | None = None, timeline: list[float] | None = None
) -> TrialRecord:
    return TrialRecord(
        experiment_id="x",
        trial_id=f"x-{runtime}",
        task_id="rename-refactor",
        runtime=runtime,  # type: ignore[arg-type]
        scenario="none",
        fault_kind=FaultKind.NONE,
        trial_index=0,
        seed=5,
        wall_time_s=wall_time_s,
        infrastructure_error=error,
        run_started_at=None if timeline is None else 1_000.0,
        model_calls_started_s=timeline or [],
    )


def test_every_arm_draws_the_same_fraction_of_its_own_fault_free_run() -> None:
    task = load_task("rename-refactor")
    free = {
        ("rename-refactor", "durable", 0): _free("durable", 10.0),
        ("rename-refactor", "baseline", 0): _free("baseline", 4.0),
    }
    lab = SimpleNamespace(fault_free=free)
    planned = {}
    for runtime in ("durable", "baseline", "baseline-journal"):
        spec = TrialSpec("x", task, runtime, CRASH, 0, seed=5)  # type: ignore[arg-type]
        planned[runtime], why = plan_timed_crash(spec, lab)  # type: ignore[arg-type]
        assert why == ""
    draw = time_draw("rename-refactor", 5)
    assert draw != time_draw("rename-refactor", 6) and 0 <= draw < 1
    assert {crash.draw for crash in planned.values() if crash} == {draw}
    assert planned["durable"] is not None and planned["durable"].at_s == pytest.approx(10.0 * draw)
    # The journaled loop has no fault-free trial of its own here: it is drawn on the naive one's.
    assert planned["baseline-journal"] == planned["baseline"]
    assert planned["baseline"] is not None and planned["baseline"].at_s == pytest.approx(4.0 * draw)

    broken = SimpleNamespace(fault_free={("rename-refactor", "durable", 0): _free("durable", 3.0, "it broke")})
    spec = TrialSpec("x", task, "durable", CRASH, 0, seed=5)
    assert plan_timed_crash(spec, broken)[0] is None  # type: ignore[arg-type]
    assert "no fault-free trial" in plan_timed_crash(spec, SimpleNamespace(fault_free={}))[1]  # type: ignore[arg-type]


def test_a_moment_is_anchored_on_the_model_call_before_it() -> None:
    timeline = [0.5, 2.0, 3.5]
    assert anchor(timeline, 2.75) == (2, pytest.approx(0.75))
    assert anchor(timeline, 2.0) == (2, pytest.approx(0.0))  # a call starting at the moment counts
    assert anchor(timeline, 0.25) == (0, pytest.approx(0.25))  # before any call: from the start
    assert anchor(timeline, 9.0) == (3, pytest.approx(5.5))  # past the last call: after it
    assert anchor([], 1.5) == (0, pytest.approx(1.5))
    assert anchor([3.5, 0.5, 2.0], 2.75) == anchor(timeline, 2.75)


def test_the_plan_anchors_the_draw_when_the_fault_free_run_kept_its_model_calls() -> None:
    task = load_task("rename-refactor")
    spec = TrialSpec("x", task, "durable", CRASH, 0, seed=5)
    draw = time_draw("rename-refactor", 5)
    timeline = [0.0, 2.5, 5.0, 7.5]
    anchored = SimpleNamespace(fault_free={("rename-refactor", "durable", 0): _free("durable", 10.0, None, timeline)})
    crash, _ = plan_timed_crash(spec, anchored)  # type: ignore[arg-type]
    calls = int(draw * 10.0 // 2.5) + 1
    assert crash is not None and crash.anchored and crash.at_s == pytest.approx(10.0 * draw)
    assert crash.after_model_call == calls
    assert crash.offset_s == pytest.approx(10.0 * draw - timeline[calls - 1])
    # A fault-free record made before timelines were kept: the moment from the start, as it was.
    older = SimpleNamespace(fault_free={("rename-refactor", "durable", 0): _free("durable", 10.0)})
    crash, _ = plan_timed_crash(spec, older)  # type: ignore[arg-type]
    assert crash is not None and not crash.anchored and crash.at_s == pytest.approx(10.0 * draw)


async def test_the_moment_is_the_crash_runs_own_model_call_and_the_offset() -> None:
    asked: list[int] = []

    async def nth_call(calls: int) -> float | None:
        asked.append(calls)
        return 500.0 if calls <= 3 else None  # the run ended before a 4th

    def crash(calls: int, anchored: bool = True) -> TimedCrash:
        return TimedCrash(draw=0.5, run_s=8.0, at_s=4.0, after_model_call=calls, offset_s=0.25, anchored=anchored)

    assert await crash_moment(crash(3), 100.0, nth_call) == pytest.approx(500.25)
    assert await crash_moment(crash(4), 100.0, nth_call) is None
    assert asked == [3, 4]
    assert await crash_moment(crash(0), 100.0, nth_call) == pytest.approx(100.25)
    assert await crash_moment(crash(3, anchored=False), 100.0, nth_call) == pytest.approx(104.0)
    assert asked == [3, 4]  # neither waits for a call


# A baseline attempt, as the lab sees it: a process that writes a live model call (and a tool
# call) to its calls.jsonl every PACE seconds, four times, then ends.
_PACED_RUN = """
import json, sys, time
path, pace = sys.argv[1], float(sys.argv[2])
for step in range(1, 5):
    time.sleep(0.1 if step == 1 else pace)
    with open(path, "a") as out:
        for call in ("model", "tool"):
            out.write(json.dumps({"time": time.time(), "step": step, "call": call}) + "\\n")
time.sleep(0.3)
"""


async def _paced_baseline(tmp_path: Path, name: str, pace: float, crash: TimedCrash) -> tuple[int, float | None, Path]:
    files = tmp_path / name
    files.mkdir()
    script = tmp_path / "paced_run.py"
    script.write_text(_PACED_RUN)
    command = [sys.executable, str(script), str(files / "calls.jsonl"), str(pace)]
    code, killed_at, _ = await _run_process(command, dict(os.environ), files / "stderr.log", files, crash)
    return code, killed_at, files


def _anchored(timeline: list[float], run_s: float, at_s: float) -> TimedCrash:
    calls, offset = anchor(timeline, at_s)
    return TimedCrash(draw=at_s / run_s, run_s=run_s, at_s=at_s, after_model_call=calls, offset_s=offset, anchored=True)


@pytest.mark.parametrize(
    ("pace", "timeline", "run_s"),
    [
        # A crash run three times faster than its fault-free run: 2.9 s from its start is after
        # its end (about 1.9 s), and a moment counted from the start would not fire.
        (0.5, [0.3, 1.5, 2.7, 3.9], 4.5),
        # Slower: counted from the start, the moment would fall in its first step, not its third.
        (1.0, [0.1, 0.4, 0.7, 1.0], 1.3),
    ],
)
async def test_a_baseline_crash_run_faster_or_slower_than_its_fault_free_run_dies_after_the_same_call(
    tmp_path: Path, pace: float, timeline: list[float], run_s: float
) -> None:
    at_s = timeline[2] + 0.2  # 0.2 s after the third model call
    crash = _anchored(timeline, run_s, at_s)
    assert (crash.after_model_call, crash.offset_s) == (3, pytest.approx(0.2))
    code, killed_at, files = await _paced_baseline(tmp_path, "anchored", pace, crash)
    calls = model_calls_at(files)
    assert code == -9 and killed_at is not None
    assert len(calls) == 3  # killed after its own third model call, before its fourth
    assert 0.2 <= killed_at - calls[2] < 0.2 + pace / 2
    if pace == 0.5:
        clock = crash.model_copy(update={"anchored": False})
        code, killed_at, files = await _paced_baseline(tmp_path, "clock", pace, clock)
        assert code == 0 and killed_at is None and len(model_calls_at(files)) == 4


@activity.defn(name=named.RECORD_THEN_PROPOSE)
async def _paced_proposal(pace: float) -> None:
    await asyncio.sleep(pace)


@activity.defn(name=named.EXECUTE_AND_CHECK)
async def _paced_tool(pace: float) -> None:
    await asyncio.sleep(pace / 2)


@workflow.defn(sandboxed=False)
class PacedRun:
    """A durable run as the lab sees it: four model calls, each followed by a tool call."""

    @workflow.run
    async def run(self, pace: float) -> None:
        for _ in range(4):
            for name in (named.RECORD_THEN_PROPOSE, named.EXECUTE_AND_CHECK):
                await workflow.execute_activity(name, pace, start_to_close_timeout=timedelta(seconds=30))


@pytest.mark.timeout(60)
async def test_a_durable_crash_run_is_placed_by_its_own_model_calls_on_its_history(
    dev_env: WorkflowEnvironment,
) -> None:
    queue = f"paced-{uuid.uuid4().hex[:8]}"
    client = dev_env.client
    async with Worker(client, task_queue=queue, workflows=[PacedRun], activities=[_paced_proposal, _paced_tool]):
        # A crash drawn 0.2 s after the third model call of a fault-free run far slower than this one.
        crash = _anchored([0.3, 2.0, 3.7, 5.4], 6.0, 3.9)
        started = time.time()
        handle = await client.start_workflow(PacedRun.run, 0.4, id=queue, task_queue=queue)
        moment = await crash_moment(crash, started, lambda calls: durable_model_call(handle, calls))
        seen_at = time.time()
        assert moment is not None
        description = await handle.describe()
        assert description.status is not None and description.status.name == "RUNNING"
        # None: asked for a call the run never makes, the long poll ends with the run.
        assert await durable_model_call(handle, 5) is None
    started_at, timeline = await durable_timeline(handle)
    assert started_at is not None and len(timeline) == 4
    assert timeline == sorted(timeline) and timeline[3] - timeline[2] >= 0.5
    assert moment - started_at == pytest.approx(timeline[2] + 0.2)  # (not epoch seconds: approx is relative)
    # Found on the long poll as it was written, not when the run ended (the clock's moment, 3.9 s
    # from the start, would have been after this run's end, at about 2.5 s).
    assert seen_at - (started_at + timeline[2]) < 0.5 and seen_at < started_at + timeline[3]


def test_a_random_time_crash_needs_a_fault_free_scenario() -> None:
    base = {"name": "x", "tasks": ["bugfix-median"], "runtimes": ["durable", "baseline-journal"], "trials": 1}
    with pytest.raises(ValidationError, match="random_time_crash is drawn on the fault-free trial"):
        ExperimentConfig.model_validate({**base, "scenarios": [{"name": "crash", "kind": "random_time_crash"}]})
    # The journaled loop's crash may be drawn on the naive loop's fault-free trial.
    shared = [{"name": "none", "runtimes": ["durable", "baseline"]}, {"name": "crash", "kind": "random_time_crash"}]
    ExperimentConfig.model_validate(
        {**base, "runtimes": ["durable", "baseline", "baseline-journal"], "scenarios": shared}
    )


@pytest.mark.timeout(400)
async def test_a_random_time_crash_kills_every_arm_through_its_own_run(data_dir: Path) -> None:
    config = ExperimentConfig(
        name="random-time-crash",
        tasks=["refund-duplicate-charge", "rename-refactor"],
        runtimes=["durable", "baseline", "baseline-journal"],
        trials=1,
        seed=11,
        concurrency=2,
        scenarios=[FaultScenario(name="none"), CRASH],
    )
    directory = await run_experiment(config)

    lines = (directory / "trials.jsonl").read_text().splitlines()
    trials = {(t.task_id, t.runtime, t.scenario): t for t in map(TrialRecord.model_validate_json, lines)}
    assert len(trials) == 12 and all(t.infrastructure_error is None for t in trials.values())
    fired = 0
    for task in config.tasks:
        draws = set()
        for runtime in config.runtimes:
            free, crashed = trials[(task, runtime, "none")], trials[(task, runtime, "crash")]
            timed = crashed.timed_crash
            assert timed is not None and timed.run_s == pytest.approx(free.wall_time_s)
            assert timed.at_s == pytest.approx(timed.draw * timed.run_s)
            draws.add(timed.draw)
            # Placed by the fault-free run's model calls, kept from its history or its calls.jsonl.
            timeline = free.model_calls_started_s
            assert free.run_started_at is not None and len(timeline) == free.steps, (free.steps, timeline)
            assert timeline == sorted(timeline) and timeline[0] >= 0 and timeline[-1] < free.wall_time_s
            assert timed.anchored and (timed.after_model_call, timed.offset_s) == anchor(timeline, timed.at_s)
            if timed.fired:
                fired += 1
                # It died after its own model call of that count had started.
                assert len(crashed.model_calls_started_s) >= timed.after_model_call
                assert crashed.valid and crashed.faults_fired == ["random_time_crash"]
                assert timed.step is not None and crashed.recovery_time_s is not None
                if task == "refund-duplicate-charge":
                    assert timed.effects_in_world is not None
            else:
                assert not crashed.valid and "ended before its crash moment" in crashed.invalid_reason
            if runtime != "baseline":
                # Durable and journaled: a crash anywhere repeats no effect and loses no run.
                assert crashed.duplicate_effects == 0 and crashed.success, crashed.reason
        assert len(draws) == 1  # one draw for the trial, whatever the arm
    # Placed by the run's own model calls, a moment misses only a run whose time after its last
    # call is shorter than the fault-free run's was.
    assert fired >= 5
    report = (directory / "report.md").read_text()
    assert "at a moment drawn uniformly over the run time" in report
