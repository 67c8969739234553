"""`summarize`: an experiment's trial records to `ExperimentResults`, by the counting rules of
`experiments.metrics`: invalid trials left out and listed, infrastructure failures and repeated
effects counted as failures."""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable

from experiments.config import RUNTIMES, ExperimentConfig, FaultKind
from experiments.metrics.compare import compare_arms
from experiments.metrics.counterfactual import counterfactual_metrics
from experiments.metrics.counting import counts_as_success
from experiments.metrics.crashes import crash_consistency
from experiments.metrics.failures import failure_kinds
from experiments.metrics.intervals import success_rate
from experiments.metrics.invariants import invariant_findings
from experiments.metrics.model_calls import model_call_metrics
from experiments.metrics.pass_hat import differing_n, pass_hat_curve
from experiments.metrics.results import (
    ALL_SCENARIOS,
    ArmMetrics,
    ExperimentResults,
    FaultKindMetrics,
    InfrastructureFailure,
    InvalidTrial,
    TaskMetrics,
)
from experiments.metrics.spend import arm_spend
from experiments.trial_record import TrialRecord


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
    checked, findings = invariant_findings(trials)
    return ExperimentResults(
        arms=arms,
        runtimes=by_runtime,
        fault_kinds=_fault_kinds(trials, runtimes),
        crashes=crash_consistency(trials, runtimes),
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
        model_calls=model_call_metrics(trials, runtimes),
        failures=failure_kinds(trials, runtimes),
        invariants_checked=checked,
        invariant_findings=findings,
        counterfactuals=counterfactual_metrics(trials),
        comparison=compare_arms(trials, config, runtimes, scenarios, tasks),
        spend=arm_spend(trials, runtimes, scenarios),
    )


def _arm(
    runtime: str, scenario: str, trials: list[TrialRecord], expected: int | None, key: Callable[[TrialRecord], str]
) -> ArmMetrics:
    valid = [trial for trial in trials if trial.valid]
    # A task whose every trial was invalid has n = 0: it makes n differ, it is not left out.
    per_task: dict[str, tuple[int, int]] = {key(trial): (0, 0) for trial in trials}
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
        pass_hat=[] if differing_n(per_task) else pass_hat_curve(per_task),
        pass_hat_withheld=differing_n(per_task),
        infrastructure_failures=sum(trial.infrastructure_error is not None for trial in valid),
        duplicate_effects=sum(trial.duplicate_effects for trial in valid),
        unsafe_actions_executed=sum(trial.unsafe_actions_executed for trial in valid),
        unapproved_effects=sum(trial.unapproved_effects for trial in valid),
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
    if scenario is None or runtime not in RUNTIMES:
        return 0
    if not config.runs(scenario, runtime):  # type: ignore[arg-type]
        return 0
    return len(scenario.tasks or config.tasks) * config.trials


def _ordered(first: Iterable[str], seen: Iterable[str]) -> list[str]:
    """Names in configured order, then any others in the order records show them."""
    return list(dict.fromkeys([*first, *seen]))
