"""Deterministic replicates: with the scripted oracle and no model noise, the k trials of a
(task, scenario, runtime) cell replay one trajectory k times, one observation and not k. Their
outcomes are shown as they are, per cell, rather than as rates with intervals; a cell whose
trials differ (a fault whose timing is not controlled) shows each outcome with its count."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from experiments.config import ExperimentConfig, FaultKind
from experiments.metrics.comparison import ReplicateOutcomes
from experiments.metrics.counting import counts_as_success
from experiments.metrics.failures import REPEATED_EFFECT, failure_kind
from experiments.trial_record import TrialRecord


def deterministic(config: ExperimentConfig | None) -> bool:
    """Whether the experiment's trials replay one trajectory per cell (outside model noise)."""
    return config is not None and config.provider.kind == "scripted"


def outcome(trial: TrialRecord) -> str:
    """A trial's outcome in a few words: pass, duplicate effect, or fail and how."""
    if counts_as_success(trial):
        said = "pass"
    else:
        kind = failure_kind(trial)
        # A record without an outcome or reason leaves "no outcome: ".
        said = "duplicate effect" if kind == REPEATED_EFFECT else f"fail: {kind.removesuffix(': ')}"
    return said if trial.valid else f"{said} (invalid: {trial.invalid_reason or 'no reason recorded'})"


def replicate_outcomes(
    trials: Sequence[TrialRecord], tasks: Sequence[str], scenarios: Sequence[str], runtimes: Sequence[str]
) -> list[ReplicateOutcomes]:
    """Every cell outside model noise, in task, scenario and runtime order."""
    cells = []
    for task in tasks:
        for scenario in scenarios:
            for runtime in runtimes:
                selected = [
                    t
                    for t in trials
                    if (t.task_id, t.scenario, t.runtime) == (task, scenario, runtime)
                    and t.fault_kind != FaultKind.MODEL_NOISE
                ]
                if selected:
                    counts = Counter(map(outcome, selected))
                    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
                    cells.append(ReplicateOutcomes(task_id=task, scenario=scenario, runtime=runtime, outcomes=ranked))
    return cells
