"""Random crashes for every arm: a (step, point) drawn uniformly from those the arm's fault-free
trial of the same task and seed reached, with one draw for every arm of a trial; so the crash
fires in every trial by construction."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from contracts import ActionProposal, StepRecord, Verdict
from contracts.actions import ReasonCode
from experiments.config import ExperimentConfig, FaultKind, FaultScenario
from experiments.runner import run_experiment
from experiments.trial_record import StepKind, TrialRecord
from experiments.trials.random_crash import crash_draw, draw_crash, reachable, trajectory_of


def _step(number: int, tool: str | None, *, result: str = "ok", verdict: str = "allow") -> StepRecord:
    proposal = ActionProposal(kind="tool_call", tool=tool, arguments={}) if tool else ActionProposal(kind="finish")
    decision = Verdict(decision=verdict, reason_code=ReasonCode.ALLOWED)  # type: ignore[arg-type]
    outcome = "committed" if verdict != "reject" and result else "rejected"
    return StepRecord(step=number, subtask_id="t", outcome=outcome, proposal=proposal, verdict=decision, result=result)


def test_a_trajectory_says_what_each_step_reached() -> None:
    steps = [
        _step(1, "read_file"),  # reads: a model call only
        _step(2, "write_file"),  # a change to the workspace
        _step(3, "issue_refund"),  # an external effect
        _step(4, "issue_refund", result="", verdict="reject"),  # refused: the tool never ran
        _step(5, None),  # finish
    ]
    assert trajectory_of(steps) == ["model", "change", "effect", "model", "model"]
    assert reachable(["model", "effect"]) == [
        (1, "model_call"),
        (2, "model_call"),
        (2, "before_effect"),
        (2, "after_effect"),
    ]


def test_every_arm_of_a_trial_draws_the_same_number_each_on_its_own_trajectory() -> None:
    draw = crash_draw("refund-duplicate-charge", 7)
    assert draw == crash_draw("refund-duplicate-charge", 7) and draw != crash_draw("refund-duplicate-charge", 8)
    long, short = ["model", "effect", "model", "change"], ["effect"]
    at_long, at_short = draw_crash("refund-duplicate-charge", 7, long), draw_crash("refund-duplicate-charge", 7, short)
    assert at_long is not None and at_short is not None
    assert at_long.draw == at_short.draw == draw and (at_long.pairs, at_short.pairs) == (8, 3)
    assert (at_long.step, at_long.point) == reachable(long)[int(draw * 8)]  # type: ignore[arg-type]
    assert draw_crash("x", 1, []) is None
    # Over many trials the points are spread over all the pairs a trajectory reached.
    seen = {(c.step, c.point) for seed in range(300) if (c := draw_crash("t", seed, long)) is not None}
    assert seen == set(reachable(long))  # type: ignore[arg-type]


def test_whether_the_effect_had_landed_is_said_for_a_service_call() -> None:
    landed = {(c.point, c.effect_landed) for seed in range(200) if (c := draw_crash("t", seed, ["effect"])) is not None}
    assert landed == {("model_call", None), ("before_effect", False), ("after_effect", True)}
    changes = {c.effect_landed for seed in range(50) if (c := draw_crash("t", seed, ["change"])) is not None}
    assert changes == {None}  # a workspace change is no service's effect


def test_a_random_crash_needs_a_fault_free_scenario_of_its_tasks_and_runtimes() -> None:
    base = {"name": "x", "tasks": ["bugfix-median"], "runtimes": ["durable", "baseline"], "trials": 1}
    with pytest.raises(ValidationError, match="add a scenario of kind none"):
        ExperimentConfig.model_validate({**base, "scenarios": [{"name": "crash", "kind": "random_crash"}]})
    narrow = [{"name": "none", "runtimes": ["durable"]}, {"name": "crash", "kind": "random_crash"}]
    with pytest.raises(ValidationError, match="add a scenario of kind none"):
        ExperimentConfig.model_validate({**base, "scenarios": narrow})
    ExperimentConfig.model_validate(
        {**base, "scenarios": [{"name": "none"}, {"name": "crash", "kind": "random_crash"}]}
    )


@pytest.mark.timeout(400)
async def test_a_random_crash_fires_in_every_trial_of_every_arm(data_dir: Path) -> None:
    config = ExperimentConfig(
        name="random-crash",
        tasks=["refund-duplicate-charge", "rename-refactor"],
        runtimes=["durable", "baseline"],
        trials=1,
        seed=3,
        concurrency=2,
        scenarios=[FaultScenario(name="none"), FaultScenario(name="crash", kind=FaultKind.RANDOM_CRASH)],
    )
    directory = await run_experiment(config)

    lines = (directory / "trials.jsonl").read_text().splitlines()
    trials = {(t.task_id, t.runtime, t.scenario): t for t in map(TrialRecord.model_validate_json, lines)}
    assert len(trials) == 8 and all(t.infrastructure_error is None for t in trials.values())
    for task in config.tasks:
        draws = set()
        for runtime in config.runtimes:
            free, crashed = trials[(task, runtime, "none")], trials[(task, runtime, "crash")]
            assert free.trajectory and free.crash is None
            assert crashed.valid and crashed.faults_fired == ["random_crash"], crashed.invalid_reason
            assert crashed.crash is not None and crashed.crash.pairs == len(reachable(free.trajectory))
            assert (crashed.crash.step, crashed.crash.point) in reachable(free.trajectory)
            draws.add(crashed.crash.draw)
        assert len(draws) == 1  # one draw for the trial, whatever the arm
    report = (directory / "report.md").read_text()
    assert "drawn uniformly from those the arm's fault-free trial" in report


def test_each_draw_of_a_trajectory_crashes_it_at_a_point_the_draws_before_it_did_not_take() -> None:
    trajectory: list[StepKind] = ["model", "effect", "change", "model"]
    pairs = reachable(trajectory)
    for seed in range(50):
        crashes = [draw_crash("t", seed, trajectory, draw) for draw in range(1, len(pairs) + 1)]
        points = [(c.step, c.point) for c in crashes if c is not None]
        assert sorted(points) == sorted(pairs)  # every pair once before any is taken again
        again = draw_crash("t", seed, trajectory, len(pairs) + 1)
        assert again is not None and (again.step, again.point) in pairs
    # Draw 1 is the draw every config had before there were several: old trials keep their point.
    assert draw_crash("t", 3, trajectory, 1) == draw_crash("t", 3, trajectory)
    first = draw_crash("t", 3, trajectory)
    assert first is not None and first.draw == crash_draw("t", 3)
    # Each draw on its own is uniform over the trajectory's pairs, whatever the draws before it.
    seconds = Counter((c.step, c.point) for seed in range(3000) if (c := draw_crash("t", seed, trajectory, 2)))
    assert set(seconds) == set(pairs) and min(seconds.values()) > 3000 / len(pairs) * 0.8


def test_only_a_random_crash_has_several_draws() -> None:
    FaultScenario(name="crash-2", kind=FaultKind.RANDOM_CRASH, draw=2)
    FaultScenario(name="timed-2", kind=FaultKind.RANDOM_TIME_CRASH, draw=2)
    with pytest.raises(ValidationError, match="numbers a random crash's draws"):
        FaultScenario(name="kill", kind=FaultKind.KILL, point="model_call", draw=2)


def test_a_random_time_crash_draws_another_moment_for_each_draw() -> None:
    from experiments.trials.random_time_crash import time_draw

    moments = [time_draw("rename-refactor", 5, draw) for draw in (1, 2, 3)]
    assert moments[0] == time_draw("rename-refactor", 5) and len(set(moments)) == 3
    assert all(0 <= moment < 1 for moment in moments)
