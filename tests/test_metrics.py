"""The experiment's figures: Wilson intervals, pass^k, and how trials are counted, against values
computed by hand."""

from __future__ import annotations

from typing import Any

import pytest

from experiments.config import ExperimentConfig, FaultKind
from experiments.metrics import ALL_SCENARIOS, pass_hat_curve, pass_hat_k, summarize, wilson_interval
from experiments.trial_record import TrialRecord


def trial(
    task: str = "t1", runtime: str = "durable", scenario: str = "none", index: int = 0, **fields: Any
) -> TrialRecord:
    fields.setdefault("success", True)
    fields.setdefault("fault_kind", FaultKind.NONE)
    return TrialRecord(
        experiment_id="exp",
        trial_id=f"{task}-{runtime}-{scenario}-{index}",
        task_id=task,
        runtime=runtime,
        scenario=scenario,
        trial_index=index,
        seed=index,
        **fields,
    )


# --- Wilson ----------------------------------------------------------------------------------
# z = 1.959964 for 95%, z^2 = 3.841459. centre = (p + z^2/2n) / (1 + z^2/n),
# half width = z * sqrt(p(1-p)/n + z^2/4n^2) / (1 + z^2/n).


def test_wilson_interval_for_none_of_ten() -> None:
    # p = 0: denominator 1.384146, centre 0.192073 / 1.384146 = 0.138767, half width the same.
    low, high = wilson_interval(0, 10)
    assert low == pytest.approx(0.0, abs=1e-12)
    assert high == pytest.approx(0.277533, abs=1e-6)


@pytest.mark.parametrize("n", [5, 10, 13, 17, 20, 33, 34])
def test_wilson_bounds_are_exact_at_none_and_all(n: int) -> None:
    assert wilson_interval(0, n)[0] == 0.0
    assert wilson_interval(n, n)[1] == 1.0


def test_wilson_interval_for_half_of_ten() -> None:
    # p = 0.5: centre 0.5; half width 1.959964 * sqrt(0.025 + 0.009604) / 1.384146 = 0.263406.
    low, high = wilson_interval(5, 10)
    assert (low, high) == (pytest.approx(0.236594, abs=1e-6), pytest.approx(0.763406, abs=1e-6))


def test_wilson_interval_for_three_of_three() -> None:
    # p = 1: denominator 2.280486, centre 1.640243 / 2.280486 = 0.719249,
    # half width 1.959964 * sqrt(3.841459 / 36) / 2.280486 = 0.280749.
    low, high = wilson_interval(3, 3)
    assert low == pytest.approx(0.438503, abs=1e-6)
    assert high == pytest.approx(1.0)


def test_wilson_interval_narrows_with_lower_confidence_and_is_whole_range_without_trials() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    low_90, high_90 = wilson_interval(5, 10, confidence=0.90)
    assert 0.236594 < low_90 < 0.5 < high_90 < 0.763406
    with pytest.raises(ValueError, match=r"within 0\.\.n"):
        wilson_interval(4, 3)


# --- pass^k ----------------------------------------------------------------------------------

THREE_TASKS = {"all": (4, 4), "half": (2, 4), "none": (0, 4)}


def test_pass_hat_k_is_the_mean_over_tasks_of_c_choose_k_over_n_choose_k() -> None:
    # k = 1: (4/4 + 2/4 + 0/4) / 3. k = 2: (6/6 + 1/6 + 0/6) / 3. k = 3: (4/4 + 0/4 + 0) / 3.
    assert pass_hat_k(THREE_TASKS, 1) == pytest.approx((1 + 0.5 + 0) / 3)
    assert pass_hat_k(THREE_TASKS, 2) == pytest.approx((1 + 1 / 6 + 0) / 3)
    assert pass_hat_k(THREE_TASKS, 3) == pytest.approx(1 / 3)
    assert pass_hat_k(THREE_TASKS, 4) == pytest.approx(1 / 3)


def test_tasks_with_fewer_than_k_trials_are_left_out_and_named() -> None:
    per_task = {"a": (3, 3), "b": (1, 2)}
    curve = pass_hat_curve(per_task)
    assert [point.k for point in curve] == [1, 2, 3]
    # k = 1: (3/3 + 1/2) / 2; k = 2: (3/3 + 0/1) / 2; k = 3: a alone.
    assert [point.value for point in curve] == pytest.approx([0.75, 0.5, 1.0])
    assert [point.tasks for point in curve] == [2, 2, 1]
    assert [point.excluded_tasks for point in curve] == [[], [], ["b"]]


def test_pass_hat_k_refuses_a_k_no_task_reaches() -> None:
    with pytest.raises(ValueError, match="no task has 5 trials"):
        pass_hat_k(THREE_TASKS, 5)
    with pytest.raises(ValueError, match="at least 1"):
        pass_hat_k(THREE_TASKS, 0)
    assert pass_hat_curve({}) == []


# --- counting trials -------------------------------------------------------------------------


def test_invalid_trials_are_left_out_of_every_figure_and_listed_with_their_reason() -> None:
    trials = [
        trial(index=0, tokens=100, wall_time_s=1.0),
        trial(index=1, success=False, tokens=300, wall_time_s=3.0),
        trial(index=2, valid=False, invalid_reason="kill never fired", tokens=10_000, wall_time_s=99.0),
    ]
    arm = summarize(trials).arms[0]
    assert (arm.trials, arm.invalid_trials) == (3, 1)
    assert (arm.success.successes, arm.success.valid_trials, arm.success.rate) == (1, 2, 0.5)
    assert arm.tokens_total == 400
    assert arm.wall_time_median_s == 2.0
    assert [point.value for point in arm.pass_hat] == [0.5, 0.0]
    [invalid] = summarize(trials).invalid_trials
    assert (invalid.trial_id, invalid.reason) == ("t1-durable-none-2", "kill never fired")


def test_infrastructure_failures_and_duplicate_effects_count_as_failures() -> None:
    trials = [
        trial(index=0),
        # A record that claims success all the same: the lab failed, so the trial did.
        trial(index=1, infrastructure_error="worker pool lost"),
        trial(index=2, duplicate_effects=1),
    ]
    results = summarize(trials)
    arm = results.arms[0]
    assert (arm.success.successes, arm.success.valid_trials) == (1, 3)
    assert arm.infrastructure_failures == 1
    assert arm.duplicate_effects == 1
    assert [(f.trial_id, f.error) for f in results.infrastructure_failures] == [
        ("t1-durable-none-1", "worker pool lost")
    ]


def test_per_arm_sums_medians_and_recovery() -> None:
    trials = [
        trial(index=0, tokens=100, tokens_wasted=20, cost_usd=0.5, wall_time_s=1.0, recovery_time_s=4.0),
        trial(index=1, tokens=200, tokens_wasted=0, cost_usd=0.25, wall_time_s=2.0, unsafe_actions_executed=1),
        trial(index=2, tokens=300, tokens_wasted=80, wall_time_s=6.0, recovery_time_s=2.0, verifier_rejections=3),
    ]
    arm = summarize(trials).arms[0]
    assert (arm.tokens_total, arm.tokens_useful, arm.tokens_wasted) == (600, 500, 100)
    assert arm.cost_usd == 0.75
    assert (arm.wall_time_median_s, arm.wall_time_mean_s) == (2.0, 3.0)
    assert (arm.recovery_time_median_s, arm.recovered_trials) == (3.0, 2)
    assert (arm.unsafe_actions_executed, arm.verifier_rejections) == (1, 3)


def test_breakdown_per_fault_kind_joins_scenarios_of_the_same_kind() -> None:
    kill = {"fault_kind": FaultKind.KILL}
    trials = [
        trial(scenario="kill-model", success=True, **kill),
        trial(scenario="kill-effect", success=False, **kill),
        trial(runtime="baseline", scenario="kill-model", success=False, **kill),
        trial(runtime="baseline", scenario="kill-effect", success=False, **kill),
        trial(scenario="none"),
    ]
    rows = {(str(row.fault_kind), row.runtime): row for row in summarize(trials).fault_kinds}
    assert set(rows) == {("kill", "durable"), ("kill", "baseline"), ("none", "durable")}
    assert rows["kill", "durable"].scenarios == ["kill-model", "kill-effect"]
    assert (rows["kill", "durable"].success.successes, rows["kill", "durable"].success.valid_trials) == (1, 2)
    assert rows["kill", "baseline"].success.rate == 0.0
    assert rows["kill", "baseline"].success.ci_high == pytest.approx(wilson_interval(0, 2)[1])


def test_a_runtime_over_all_scenarios_counts_each_task_and_scenario_as_one_task() -> None:
    trials = [
        *(trial(scenario="none", index=i) for i in range(2)),
        trial(scenario="kill", index=0),
        trial(scenario="kill", index=1, success=False),
    ]
    [overall] = summarize(trials).runtimes
    assert overall.scenario == ALL_SCENARIOS
    # pass^2: (C(2,2)/C(2,2) + C(1,2)/C(2,2)) / 2.
    assert [point.value for point in overall.pass_hat] == [0.75, 0.5]


def test_arms_follow_the_configuration_and_show_missing_trials() -> None:
    config = ExperimentConfig.model_validate(
        {
            "name": "small",
            "tasks": ["t1", "t2"],
            "runtimes": ["durable", "baseline"],
            "trials": 2,
            "scenarios": [{"name": "none"}, {"name": "restart", "kind": "server_restart"}],
        }
    )
    trials = [trial(task=task, runtime="baseline", index=i) for task in ("t1", "t2") for i in range(2)]
    arms = summarize(trials, config).arms
    # The baseline has no server to restart: that arm is not expected, so not shown.
    assert [(arm.scenario, arm.runtime, arm.trials, arm.expected_trials) for arm in arms] == [
        ("none", "durable", 0, 4),
        ("none", "baseline", 4, 4),
        ("restart", "durable", 0, 4),
    ]
    assert arms[0].success.rate is None
    assert arms[0].pass_hat == []
