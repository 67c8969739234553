"""An experiment's figures, computed from its trial records and nothing else.

Pure functions: the same records give the same numbers, and every number a report shows is a
field of `ExperimentResults`. The counting rules, in one place:

- An invalid trial (a configured fault never fired) is left out of every figure of its arm and
  listed apart, with its reason: it did not run under the condition the arm names.
- A valid trial succeeds only when its record says so, it had no infrastructure error and no
  effect repeated. An infrastructure failure (the lab's, not the agent's) is a failure.
- pass^k is the tau-bench estimator: the mean over tasks of C(c, k) / C(n, k), with c successes
  in n valid trials. A task with n < k has no estimate at that k and is left out of the mean;
  each `PassHat` names the tasks it left out.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable, Mapping
from math import comb, sqrt
from statistics import NormalDist

from pydantic import BaseModel, Field

from contracts.experiment import ExperimentConfig, FaultKind, TrialRecord

__all__ = [
    "ALL_SCENARIOS",
    "ArmMetrics",
    "ExperimentResults",
    "FaultKindMetrics",
    "InfrastructureFailure",
    "InvalidTrial",
    "PassHat",
    "SuccessRate",
    "TaskMetrics",
    "counts_as_success",
    "pass_hat_curve",
    "pass_hat_k",
    "success_rate",
    "summarize",
    "wilson_interval",
]

# The scenario name of a runtime's figures over all its scenarios.
ALL_SCENARIOS = "all"


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion; (0, 1) when there is no trial."""
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..n, got {successes} of {n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half_width = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At 0 or n successes the bound is exactly the rate; computed, it is off by rounding
    # (2.8e-17 for 0 of 5), and a plot's error bar of -2.8e-17 is refused.
    low = 0.0 if successes == 0 else max(0.0, centre - half_width)
    high = 1.0 if successes == n else min(1.0, centre + half_width)
    return (low, high)


def pass_hat_k(per_task: Mapping[str, tuple[int, int]], k: int) -> float:
    """pass^k over tasks given as {task: (successes, trials)}; tasks with fewer than k trials
    are left out. Raises ValueError when no task has k trials."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    for task, (successes, n) in per_task.items():
        if not 0 <= successes <= n:
            raise ValueError(f"task {task}: successes must be within 0..n, got {successes} of {n}")
    eligible = [(successes, n) for successes, n in per_task.values() if n >= k]
    if not eligible:
        raise ValueError(f"no task has {k} trials")
    return statistics.fmean(comb(successes, k) / comb(n, k) for successes, n in eligible)


class PassHat(BaseModel):
    k: int
    value: float
    # Tasks in the mean, and those left out because they have fewer than k valid trials.
    tasks: int
    excluded_tasks: list[str] = Field(default_factory=list)


def pass_hat_curve(per_task: Mapping[str, tuple[int, int]]) -> list[PassHat]:
    """pass^k for k = 1 .. the most trials any task has (empty when no task has a trial)."""
    most = max((n for _, n in per_task.values()), default=0)
    return [
        PassHat(
            k=k,
            value=pass_hat_k(per_task, k),
            tasks=sum(n >= k for _, n in per_task.values()),
            excluded_tasks=sorted(task for task, (_, n) in per_task.items() if n < k),
        )
        for k in range(1, most + 1)
    ]


class SuccessRate(BaseModel):
    successes: int
    valid_trials: int
    # None when there is no valid trial; the interval is then (0, 1).
    rate: float | None
    ci_low: float
    ci_high: float


def success_rate(successes: int, valid_trials: int) -> SuccessRate:
    low, high = wilson_interval(successes, valid_trials)
    rate = successes / valid_trials if valid_trials else None
    return SuccessRate(successes=successes, valid_trials=valid_trials, rate=rate, ci_low=low, ci_high=high)


def counts_as_success(trial: TrialRecord) -> bool:
    return trial.success and trial.infrastructure_error is None and trial.duplicate_effects == 0


class ArmMetrics(BaseModel):
    """One runtime under one scenario (or under all of them: scenario `all`). Every figure but
    `trials`, `expected_trials` and `invalid_trials` is over the valid trials only."""

    runtime: str
    scenario: str
    # From the configuration, when it was given: how many trials the arm should have.
    expected_trials: int | None = None
    trials: int
    invalid_trials: int
    success: SuccessRate
    # Over all scenarios, each (task, scenario) counts as one task, named `task/scenario`.
    pass_hat: list[PassHat]
    infrastructure_failures: int
    duplicate_effects: int
    unsafe_actions_executed: int
    verifier_rejections: int
    wall_time_median_s: float | None
    wall_time_mean_s: float | None
    tokens_total: int
    tokens_useful: int
    tokens_wasted: int
    cost_usd: float
    # Median over the trials that have a recovery time (a fault they recovered from), and their number.
    recovery_time_median_s: float | None
    recovered_trials: int


class FaultKindMetrics(BaseModel):
    fault_kind: FaultKind
    runtime: str
    scenarios: list[str]
    success: SuccessRate


class TaskMetrics(BaseModel):
    task_id: str
    runtime: str
    scenario: str
    trials: int
    invalid_trials: int
    infrastructure_failures: int
    success: SuccessRate


class InvalidTrial(BaseModel):
    trial_id: str
    task_id: str
    runtime: str
    scenario: str
    trial_index: int
    reason: str


class InfrastructureFailure(BaseModel):
    trial_id: str
    task_id: str
    runtime: str
    scenario: str
    trial_index: int
    error: str


class ExperimentResults(BaseModel):
    # Arms in scenario order, runtimes side by side within a scenario.
    arms: list[ArmMetrics]
    runtimes: list[ArmMetrics]
    fault_kinds: list[FaultKindMetrics]
    tasks: list[TaskMetrics]
    invalid_trials: list[InvalidTrial]
    infrastructure_failures: list[InfrastructureFailure]

    @property
    def max_k(self) -> int:
        return max((len(arm.pass_hat) for arm in self.arms), default=0)


def summarize(trials: list[TrialRecord], config: ExperimentConfig | None = None) -> ExperimentResults:
    """Every figure of an experiment. With its configuration, arms keep the configured order
    and say how many trials they should have had, so a missing trial shows."""
    runtimes = _ordered((config.runtimes if config else []), (trial.runtime for trial in trials))
    scenarios = _ordered((s.name for s in config.scenarios) if config else [], (t.scenario for t in trials))
    tasks = _ordered((config.tasks if config else []), (trial.task_id for trial in trials))
    arms = []
    for scenario in scenarios:
        for runtime in runtimes:
            selected = [t for t in trials if t.runtime == runtime and t.scenario == scenario]
            expected = _expected_trials(config, runtime, scenario) if config else None
            if selected or expected:
                arms.append(_arm(runtime, scenario, selected, expected, key=lambda t: t.task_id))
    by_runtime = []
    for runtime in runtimes:
        selected = [t for t in trials if t.runtime == runtime]
        expected = sum(_expected_trials(config, runtime, s) for s in scenarios) if config else None
        by_runtime.append(_arm(runtime, ALL_SCENARIOS, selected, expected, key=lambda t: f"{t.task_id}/{t.scenario}"))
    return ExperimentResults(
        arms=arms,
        runtimes=by_runtime,
        fault_kinds=_fault_kinds(trials, runtimes),
        tasks=[
            _task(task, runtime, scenario, selected)
            for task in tasks
            for scenario in scenarios
            for runtime in runtimes
            if (selected := [t for t in trials if (t.task_id, t.runtime, t.scenario) == (task, runtime, scenario)])
        ],
        invalid_trials=[
            InvalidTrial(
                trial_id=t.trial_id,
                task_id=t.task_id,
                runtime=t.runtime,
                scenario=t.scenario,
                trial_index=t.trial_index,
                reason=t.invalid_reason or "(no reason recorded)",
            )
            for t in trials
            if not t.valid
        ],
        infrastructure_failures=[
            InfrastructureFailure(
                trial_id=t.trial_id,
                task_id=t.task_id,
                runtime=t.runtime,
                scenario=t.scenario,
                trial_index=t.trial_index,
                error=t.infrastructure_error,
            )
            for t in trials
            if t.valid and t.infrastructure_error is not None
        ],
    )


def _arm(
    runtime: str, scenario: str, trials: list[TrialRecord], expected: int | None, key: Callable[[TrialRecord], str]
) -> ArmMetrics:
    valid = [trial for trial in trials if trial.valid]
    per_task: dict[str, tuple[int, int]] = {}
    for trial in valid:
        successes, n = per_task.get(key(trial), (0, 0))
        per_task[key(trial)] = (successes + counts_as_success(trial), n + 1)
    wall_times = [trial.wall_time_s for trial in valid]
    recoveries = [trial.recovery_time_s for trial in valid if trial.recovery_time_s is not None]
    return ArmMetrics(
        runtime=runtime,
        scenario=scenario,
        expected_trials=expected,
        trials=len(trials),
        invalid_trials=len(trials) - len(valid),
        success=success_rate(sum(map(counts_as_success, valid)), len(valid)),
        pass_hat=pass_hat_curve(per_task),
        infrastructure_failures=sum(trial.infrastructure_error is not None for trial in valid),
        duplicate_effects=sum(trial.duplicate_effects for trial in valid),
        unsafe_actions_executed=sum(trial.unsafe_actions_executed for trial in valid),
        verifier_rejections=sum(trial.verifier_rejections for trial in valid),
        wall_time_median_s=statistics.median(wall_times) if wall_times else None,
        wall_time_mean_s=statistics.fmean(wall_times) if wall_times else None,
        tokens_total=sum(trial.tokens for trial in valid),
        tokens_useful=sum(trial.tokens_useful for trial in valid),
        tokens_wasted=sum(trial.tokens_wasted for trial in valid),
        cost_usd=sum(trial.cost_usd for trial in valid),
        recovery_time_median_s=statistics.median(recoveries) if recoveries else None,
        recovered_trials=len(recoveries),
    )


def _fault_kinds(trials: list[TrialRecord], runtimes: list[str]) -> list[FaultKindMetrics]:
    rows = []
    for kind in FaultKind:
        for runtime in runtimes:
            selected = [t for t in trials if t.fault_kind == kind and t.runtime == runtime]
            if not selected:
                continue
            valid = [trial for trial in selected if trial.valid]
            rows.append(
                FaultKindMetrics(
                    fault_kind=kind,
                    runtime=runtime,
                    scenarios=_ordered([], (trial.scenario for trial in selected)),
                    success=success_rate(sum(map(counts_as_success, valid)), len(valid)),
                )
            )
    return rows


def _task(task: str, runtime: str, scenario: str, trials: list[TrialRecord]) -> TaskMetrics:
    valid = [trial for trial in trials if trial.valid]
    return TaskMetrics(
        task_id=task,
        runtime=runtime,
        scenario=scenario,
        trials=len(trials),
        invalid_trials=len(trials) - len(valid),
        infrastructure_failures=sum(trial.infrastructure_error is not None for trial in valid),
        success=success_rate(sum(map(counts_as_success, valid)), len(valid)),
    )


def _expected_trials(config: ExperimentConfig, runtime: str, scenario_name: str) -> int:
    """Trials the configuration asks of an arm: the scenario's tasks, when the scenario applies
    to the runtime and the runtime has the scenario's fault point."""
    scenario = next((s for s in config.scenarios if s.name == scenario_name), None)
    if scenario is None or runtime not in ("durable", "baseline", "baseline+verifier"):
        return 0
    if not config.runs(scenario, runtime):  # type: ignore[arg-type]
        return 0
    return len(scenario.tasks or config.tasks) * config.trials


def _ordered(first: Iterable[str], seen: Iterable[str]) -> list[str]:
    """Names in configured order, then any others in the order records show them."""
    return list(dict.fromkeys([*first, *seen]))
