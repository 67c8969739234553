"""Paired success differences between arms: trials of two arms that share task, scenario and
trial index (so seed) are a pair; the difference is the mean over pairs of success(a) -
success(b), with cluster-bootstrap intervals over tasks and over (task, seed) trajectories, and
McNemar's exact test on the discordant pairs."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from scipy.stats import binomtest

from experiments.metrics.bootstrap import BootstrapSpec, cluster_bootstrap
from experiments.metrics.comparison import PairedDifference, Population
from experiments.metrics.counting import counts_as_success
from experiments.metrics.results import ALL_SCENARIOS
from experiments.trial_record import TrialRecord

POPULATIONS: tuple[Population, ...] = ("intention-to-treat", "per-protocol")

# (task, scenario, trial index): what pairs two arms' trials.
PairKey = tuple[str, str, int]


def trajectory(trial: TrialRecord) -> str:
    """The unit of analysis a trial belongs to: its (task, seed)."""
    return f"{trial.task_id} seed {trial.seed}"


def by_pair_key(trials: Sequence[TrialRecord], runtime: str, scenario: str) -> dict[PairKey, TrialRecord]:
    """A runtime's trials of a scenario (or of all: `ALL_SCENARIOS`), by what pairs them."""
    return {
        (t.task_id, t.scenario, t.trial_index): t
        for t in trials
        if t.runtime == runtime and scenario in (ALL_SCENARIOS, t.scenario)
    }


def in_population(population: Population, *trials: TrialRecord) -> bool:
    return population == "intention-to-treat" or all(t.valid for t in trials)


def paired_differences(
    trials: Sequence[TrialRecord], runtimes: Sequence[str], scenarios: Sequence[str], spec: BootstrapSpec
) -> list[PairedDifference]:
    """For every pair of runtimes (in the order given), every scenario and all of them, and both
    populations: the paired difference, where the two arms have a pair."""
    rows = []
    for a, b in combinations(runtimes, 2):
        for scenario in [*scenarios, ALL_SCENARIOS]:
            ours, theirs = by_pair_key(trials, a, scenario), by_pair_key(trials, b, scenario)
            for population in POPULATIONS:
                pairs = [
                    (ours[key], theirs[key])
                    for key in ours
                    if key in theirs and in_population(population, ours[key], theirs[key])
                ]
                if pairs:
                    rows.append(_difference(a, b, scenario, population, pairs, spec))
    return rows


def _difference(
    a: str,
    b: str,
    scenario: str,
    population: Population,
    pairs: list[tuple[TrialRecord, TrialRecord]],
    spec: BootstrapSpec,
) -> PairedDifference:
    differences = [float(counts_as_success(x)) - float(counts_as_success(y)) for x, y in pairs]
    ones = [1.0] * len(pairs)
    tasks = [x.task_id for x, _ in pairs]
    trajectories = [trajectory(x) for x, _ in pairs]
    a_only, b_only = differences.count(1.0), differences.count(-1.0)
    return PairedDifference(
        a=a,
        b=b,
        scenario=scenario,
        population=population,
        pairs=len(pairs),
        tasks=len(set(tasks)),
        trajectories=len(set(trajectories)),
        a_successes=sum(counts_as_success(x) for x, _ in pairs),
        b_successes=sum(counts_as_success(y) for _, y in pairs),
        difference=sum(differences) / len(pairs),
        by_task=cluster_bootstrap(differences, ones, tasks, spec),
        by_trajectory=cluster_bootstrap(differences, ones, trajectories, spec),
        a_only=a_only,
        b_only=b_only,
        mcnemar_p=float(binomtest(a_only, a_only + b_only, 0.5).pvalue) if a_only + b_only else None,
    )
