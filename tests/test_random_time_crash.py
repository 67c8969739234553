"""Random-time crashes for every arm: the process that runs the agent SIGKILLed at a moment drawn
uniformly over the arm's fault-free run, wherever the run then is, with one draw for every arm of
a trial."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from pydantic import ValidationError

from experiments.config import ExperimentConfig, FaultKind, FaultScenario
from experiments.runner import run_experiment
from experiments.trial_record import TrialRecord
from experiments.trials.random_time_crash import plan_timed_crash, time_draw
from experiments.trials.spec import TrialSpec
from lab.runs.catalog import load_task

CRASH = FaultScenario(name="crash", kind=FaultKind.RANDOM_TIME_CRASH)


def _free(runtime: str, wall_time_s: float, error: str | None = None) -> TrialRecord:
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
            if timed.fired:
                fired += 1
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
    assert fired >= 4  # nearly every run lasts past its moment (a run can be faster than its fault-free one)
    report = (directory / "report.md").read_text()
    assert "at a moment drawn uniformly over the run time" in report
