"""Counterfactuals: each durable trial beside its fork after step K (`TrialRecord.counterfactual`),
per task and scenario. The question a row answers: of the trials that failed, how many would
have succeeded had the model answered as the counterfactual's provider did from step K+1
(`fixed`); of those that succeeded, how many would not (`broken`).

Only trials that were forked are compared: a trial with fewer than K steps, or one the lab
failed, has no fork, and is counted apart (`not_forked`). A fork the lab failed counts as a
failed fork, as a trial the lab failed counts as a failed trial.
"""

from __future__ import annotations

import statistics

from pydantic import BaseModel

from experiments.metrics.counting import counts_as_success
from experiments.metrics.intervals import SuccessRate, success_rate
from experiments.trial_record import TrialRecord


class CounterfactualMetrics(BaseModel):
    task_id: str
    scenario: str
    from_step: int
    # Durable trials of this task and scenario, valid ones only, and how many of them were forked.
    trials: int
    forked: int
    not_forked: int
    # Over the forked trials: the trials' own success, and their forks'.
    trial_success: SuccessRate
    fork_success: SuccessRate
    fixed: int
    broken: int
    # Forks that did what their trial did, step for step (no first difference).
    same_path: int
    # The forks' own spending from step K+1 (mean over the forks), and the first step at
    # which they parted from their trials (median over the forks that parted).
    live_model_calls_mean: float | None
    first_difference_median: float | None
    fork_infrastructure_failures: int


def counterfactual_metrics(trials: list[TrialRecord]) -> list[CounterfactualMetrics]:
    """One row per (task, scenario) that has a counterfactual, in the trials' order."""
    groups: dict[tuple[str, str], list[TrialRecord]] = {}
    for trial in trials:
        if trial.counterfactual is not None and trial.valid:
            groups.setdefault((trial.task_id, trial.scenario), []).append(trial)
    return [_row(task, scenario, group) for (task, scenario), group in groups.items()]


def fork_succeeded(trial: TrialRecord) -> bool:
    fork = trial.counterfactual
    return fork is not None and fork.success and fork.infrastructure_error is None and fork.duplicate_effects == 0


def _row(task_id: str, scenario: str, group: list[TrialRecord]) -> CounterfactualMetrics:
    forked = [trial for trial in group if trial.counterfactual is not None and trial.counterfactual.forked]
    forks = [trial.counterfactual for trial in forked if trial.counterfactual is not None]
    parted = [fork.first_difference for fork in forks if fork.first_difference is not None]
    return CounterfactualMetrics(
        task_id=task_id,
        scenario=scenario,
        from_step=group[0].counterfactual.from_step if group[0].counterfactual else 0,
        trials=len(group),
        forked=len(forked),
        not_forked=len(group) - len(forked),
        trial_success=success_rate(sum(counts_as_success(trial) for trial in forked), len(forked)),
        fork_success=success_rate(sum(fork_succeeded(trial) for trial in forked), len(forked)),
        fixed=sum(not counts_as_success(trial) and fork_succeeded(trial) for trial in forked),
        broken=sum(counts_as_success(trial) and not fork_succeeded(trial) for trial in forked),
        same_path=sum(fork.first_difference is None and fork.infrastructure_error is None for fork in forks),
        live_model_calls_mean=statistics.fmean(fork.live_model_calls for fork in forks) if forks else None,
        first_difference_median=statistics.median(parted) if parted else None,
        fork_infrastructure_failures=sum(fork.infrastructure_error is not None for fork in forks),
    )
