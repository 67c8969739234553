"""The primary fault endpoint, per arm and faulted scenario: P(fail under fault | succeeded
without it). An arm's faulted trial is paired with its own fault-free trial (a scenario of kind
`none`) of the same task and seed; among the pairs whose fault-free trial succeeded, the share
that failed under the fault, with a cluster-bootstrap interval over tasks. What a fault costs
a run that would have succeeded, not how hard the task is."""

from __future__ import annotations

from collections.abc import Sequence

from experiments.config import FAULT_FREE_ARMS, FaultKind
from experiments.metrics.bootstrap import BootstrapSpec, cluster_bootstrap
from experiments.metrics.comparison import FaultEndpoint, Population
from experiments.metrics.counting import counts_as_success
from experiments.metrics.paired import POPULATIONS, in_population
from experiments.metrics.results import ALL_SCENARIOS
from experiments.trial_record import TrialRecord

# A faulted trial and the fault-free trial of the same task and seed it is read against.
Pair = tuple[TrialRecord, TrialRecord]


def fault_endpoints(
    trials: Sequence[TrialRecord], runtimes: Sequence[str], scenarios: Sequence[str], spec: BootstrapSpec
) -> list[FaultEndpoint]:
    """Per runtime, each faulted scenario with a fault-free trial to pair with, and all of them
    together when there are several."""
    rows = []
    for runtime in runtimes:
        own = [t for t in trials if t.runtime == runtime]
        fault_free: dict[tuple[str, int], TrialRecord] = {}
        # Its own fault-free trials, else those of the arm its crashes are drawn on (the
        # journaled loop's may be the naive loop's: without a crash they are one loop).
        for arm in FAULT_FREE_ARMS.get(runtime, (runtime,)):
            for scenario in scenarios:
                for t in trials:
                    if t.runtime == arm and t.scenario == scenario and t.fault_kind == FaultKind.NONE:
                        fault_free.setdefault((t.task_id, t.trial_index), t)
        faulted = [s for s in scenarios if any(t.scenario == s and t.fault_kind != FaultKind.NONE for t in own)]
        for population in POPULATIONS:
            every: list[Pair] = []
            for scenario in faulted:
                pairs = _pairs([t for t in own if t.scenario == scenario], fault_free, population)
                every += pairs
                rows += _endpoint(runtime, scenario, population, pairs, spec)
            if len({t.scenario for t, _ in every}) > 1:
                rows += _endpoint(runtime, ALL_SCENARIOS, population, every, spec)
    return rows


def _pairs(
    faulted: list[TrialRecord], fault_free: dict[tuple[str, int], TrialRecord], population: Population
) -> list[Pair]:
    return [
        (t, clean)
        for t in faulted
        if (clean := fault_free.get((t.task_id, t.trial_index))) is not None and in_population(population, t, clean)
    ]


def _endpoint(
    runtime: str, scenario: str, population: Population, pairs: list[Pair], spec: BootstrapSpec
) -> list[FaultEndpoint]:
    """The endpoint over `pairs`, or nothing when no fault-free trial of them succeeded."""
    conditioned = [(t, clean) for t, clean in pairs if counts_as_success(clean)]
    if not conditioned:
        return []
    failures = [0.0 if counts_as_success(t) else 1.0 for t, _ in conditioned]
    tasks = [t.task_id for t, _ in conditioned]
    endpoint = FaultEndpoint(
        runtime=runtime,
        scenario=scenario,
        fault_free=", ".join(dict.fromkeys(clean.scenario for _, clean in conditioned)),
        population=population,
        pairs=len(conditioned),
        failed=int(sum(failures)),
        rate=sum(failures) / len(conditioned),
        tasks=len(set(tasks)),
        by_task=cluster_bootstrap(failures, [1.0] * len(failures), tasks, spec),
    )
    return [endpoint]
