"""Intention to treat beside per protocol, per arm: the success rate over every trial (an
invalid one, whose fault never fired, counted as what happened) and over the valid trials
only, and the trials the latter leaves out, by reason. Leaving out trials per arm compares arms
on different populations; the two rates side by side show how much that changes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from experiments.metrics.comparison import ArmPopulations, Exclusion
from experiments.metrics.counting import counts_as_success
from experiments.metrics.intervals import success_rate
from experiments.metrics.results import ALL_SCENARIOS
from experiments.trial_record import TrialRecord


def arm_populations(
    trials: Sequence[TrialRecord], runtimes: Sequence[str], scenarios: Sequence[str]
) -> list[ArmPopulations]:
    """Per scenario and runtime, then per runtime over all scenarios; arms without a trial are
    left out."""
    rows = []
    for scenario in [*scenarios, ALL_SCENARIOS]:
        for runtime in runtimes:
            selected = [t for t in trials if t.runtime == runtime and scenario in (ALL_SCENARIOS, t.scenario)]
            if selected:
                rows.append(_populations(runtime, scenario, selected))
    return rows


def _populations(runtime: str, scenario: str, trials: list[TrialRecord]) -> ArmPopulations:
    valid = [t for t in trials if t.valid]
    reasons = Counter(t.invalid_reason or "(no reason recorded)" for t in trials if not t.valid)
    return ArmPopulations(
        runtime=runtime,
        scenario=scenario,
        intention_to_treat=success_rate(sum(map(counts_as_success, trials)), len(trials)),
        per_protocol=success_rate(sum(map(counts_as_success, valid)), len(valid)),
        exclusions=[
            Exclusion(reason=reason, trials=count)
            for reason, count in sorted(reasons.items(), key=lambda item: (-item[1], item[0]))
        ],
    )
