"""`compare_arms`: the arms compared on the unit of analysis, the (task, seed) trajectory
(`Comparison`): paired differences, the primary fault endpoint, intention to treat beside per
protocol, cost per success, and deterministic replicates shown as outcomes."""

from __future__ import annotations

from collections.abc import Sequence

from experiments.config import ExperimentConfig
from experiments.metrics.bootstrap import BootstrapSpec
from experiments.metrics.comparison import Comparison
from experiments.metrics.cost import arm_costs
from experiments.metrics.fault_endpoint import fault_endpoints
from experiments.metrics.paired import paired_differences
from experiments.metrics.populations import arm_populations
from experiments.metrics.replicates import deterministic, replicate_outcomes
from experiments.trial_record import TrialRecord


def compare_arms(
    trials: Sequence[TrialRecord],
    config: ExperimentConfig | None,
    runtimes: Sequence[str],
    scenarios: Sequence[str],
    tasks: Sequence[str],
    spec: BootstrapSpec | None = None,
) -> Comparison:
    """Runtimes, scenarios and tasks in the order the report shows them."""
    spec = spec or BootstrapSpec()
    scripted = deterministic(config)
    return Comparison(
        bootstrap=spec,
        paired=paired_differences(trials, runtimes, scenarios, spec),
        fault_endpoints=fault_endpoints(trials, runtimes, scenarios, spec),
        populations=arm_populations(trials, runtimes, scenarios),
        costs=arm_costs(trials, runtimes, scenarios, spec),
        deterministic=scripted,
        replicates=replicate_outcomes(trials, tasks, scenarios, runtimes) if scripted else [],
    )
