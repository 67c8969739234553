"""Cost per trial and per success, per arm: tokens, model-seconds and wall time summed over every
trial the arm ran (a trial whose fault never fired spent all the same), over its trials and
over its successes, each with a cluster-bootstrap interval over tasks. A per-call figure hides
extra calls, a per-trial one the trials that failed; per success counts both."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from experiments.metrics.bootstrap import BootstrapSpec, cluster_bootstrap
from experiments.metrics.comparison import ArmCost, CostFigure
from experiments.metrics.counting import counts_as_success
from experiments.metrics.results import ALL_SCENARIOS
from experiments.trial_record import TrialRecord


def arm_costs(
    trials: Sequence[TrialRecord], runtimes: Sequence[str], scenarios: Sequence[str], spec: BootstrapSpec
) -> list[ArmCost]:
    """Per runtime over all scenarios first (the headline), then per scenario and runtime."""
    rows = []
    for scenario in [ALL_SCENARIOS, *scenarios]:
        for runtime in runtimes:
            selected = [t for t in trials if t.runtime == runtime and scenario in (ALL_SCENARIOS, t.scenario)]
            if selected:
                rows.append(_cost(runtime, scenario, selected, spec))
    return rows


def _cost(runtime: str, scenario: str, trials: list[TrialRecord], spec: BootstrapSpec) -> ArmCost:
    successes = [float(counts_as_success(t)) for t in trials]
    tasks = [t.task_id for t in trials]

    def figure(measure: Callable[[TrialRecord], float]) -> CostFigure:
        spent = [float(measure(t)) for t in trials]
        succeeded = sum(successes) > 0
        return CostFigure(
            per_trial=sum(spent) / len(trials),
            per_trial_interval=cluster_bootstrap(spent, [1.0] * len(trials), tasks, spec),
            per_success=sum(spent) / sum(successes) if succeeded else None,
            per_success_interval=cluster_bootstrap(spent, successes, tasks, spec) if succeeded else None,
        )

    return ArmCost(
        runtime=runtime,
        scenario=scenario,
        trials=len(trials),
        successes=int(sum(successes)),
        tasks=len(set(tasks)),
        tokens=figure(lambda t: t.tokens),
        model_seconds=figure(lambda t: t.model_time_s),
        wall_seconds=figure(lambda t: t.wall_time_s),
    )
