"""The arms compared on the (task, seed) trajectory, from a small hand-made `trials.jsonl`: the
paired difference, McNemar's discordant pairs, the fault endpoint, intention to treat beside per
protocol and cost per success against values worked out by hand below, and two bootstrap
intervals recomputed here, independently, by the procedure `experiments.metrics.bootstrap`
documents."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from experiments.config import ExperimentConfig, FaultKind
from experiments.metrics import (
    ALL_SCENARIOS,
    BootstrapSpec,
    Comparison,
    PairedDifference,
    cluster_bootstrap,
    summarize,
)
from experiments.report import read_trials
from experiments.trial_record import TrialRecord

CONFIG = ExperimentConfig.model_validate(
    {
        "name": "hand-made",
        "tasks": ["task-a", "task-b", "task-c"],
        "runtimes": ["durable", "baseline"],
        "trials": 2,
        "seed": 10,
        "scenarios": [{"name": "none"}, {"name": "kill", "kind": "kill", "point": "after_effect"}],
    }
)

# (task, trial index, scenario): (durable, baseline). P: passed; F: failed; D: the record says
# success but an effect repeated (a failure by the counting rule); I: failed, and invalid (the
# kill never fired). Seeds are 10 + index, the same in both arms.
OUTCOMES = {
    ("task-a", 0, "none"): "PP",
    ("task-a", 1, "none"): "PP",
    ("task-b", 0, "none"): "PP",
    ("task-b", 1, "none"): "PF",
    ("task-c", 0, "none"): "FP",
    ("task-c", 1, "none"): "PP",
    ("task-a", 0, "kill"): "PF",
    ("task-a", 1, "kill"): "PD",
    ("task-b", 0, "kill"): "PP",
    ("task-b", 1, "kill"): "FF",
    ("task-c", 0, "kill"): "PF",
    ("task-c", 1, "kill"): "PI",
}


def trials_jsonl(path: Path) -> Path:
    """Write the hand-made trials, one record a line, as the runner would. Tokens: 1000 a
    trial, 1500 for the baseline under the kill (its rerun spends again)."""
    lines = []
    for (task, index, scenario), outcomes in OUTCOMES.items():
        for runtime, said in zip(CONFIG.runtimes, outcomes, strict=True):
            killed = scenario == "kill"
            record = TrialRecord(
                experiment_id="hand-made-1",
                trial_id=f"{task}-{runtime}-{scenario}-{index}",
                task_id=task,
                runtime=runtime,
                scenario=scenario,
                fault_kind=FaultKind.KILL if killed else FaultKind.NONE,
                trial_index=index,
                seed=CONFIG.seed + index,
                valid=said != "I",
                invalid_reason="the kill never fired" if said == "I" else "",
                success=said in "PD",
                duplicate_effects=1 if said == "D" else 0,
                tokens=1500 if killed and runtime == "baseline" else 1000,
                model_time_s=2.0,
                wall_time_s=4.0 if runtime == "durable" else 3.0,
            )
            lines.append(record.model_dump_json() + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def comparison(tmp_path_factory: pytest.TempPathFactory) -> Comparison:
    trials = read_trials(trials_jsonl(tmp_path_factory.mktemp("hand-made") / "trials.jsonl"))
    compared = summarize(trials, CONFIG).comparison
    assert compared is not None
    return compared


def paired(comparison: Comparison, scenario: str, population: str = "intention-to-treat") -> PairedDifference:
    [row] = [p for p in comparison.paired if (p.scenario, p.population) == (scenario, population)]
    return row


def test_paired_differences_and_discordant_pairs_are_those_worked_out_by_hand(comparison: Comparison) -> None:
    # none: durable - baseline per pair: a0 0, a1 0, b0 0, b1 +1, c0 -1, c1 0: mean 0/6; one pair
    # each way is discordant, so McNemar's p is binom(1 of 2) = 1.
    none = paired(comparison, "none")
    assert (none.a, none.b, none.pairs, none.tasks, none.trajectories) == ("durable", "baseline", 6, 3, 6)
    assert (none.difference, none.a_only, none.b_only, none.mcnemar_p) == (0.0, 1, 1, 1.0)
    # kill: a0 +1, a1 +1 (the repeated effect fails the baseline), b0 0, b1 0, c0 +1, c1 +1:
    # 4/6; McNemar: 4 of 4 discordant pairs one way, two-sided p = 2 * 0.5^4 = 0.125.
    kill = paired(comparison, "kill")
    assert kill.difference == pytest.approx(4 / 6)
    assert (kill.a_successes, kill.b_successes, kill.a_only, kill.b_only) == (5, 1, 4, 0)
    assert kill.mcnemar_p == pytest.approx(0.125)
    # all: 12 pairs, sum 4: 1/3; discordant 5 and 1: p = 2 * (C(6,5) + C(6,6)) / 2^6 = 14/64.
    # The 6 (task, seed) trajectories each hold two pairs (none and kill).
    overall = paired(comparison, ALL_SCENARIOS)
    assert (overall.pairs, overall.tasks, overall.trajectories) == (12, 3, 6)
    assert overall.difference == pytest.approx(1 / 3)
    assert overall.mcnemar_p == pytest.approx(14 / 64)
    # Per protocol drops the pair whose baseline kill never fired (c1): 3 of 5.
    kill_pp = paired(comparison, "kill", "per-protocol")
    assert (kill_pp.pairs, kill_pp.difference) == (5, pytest.approx(3 / 5))


def test_the_interval_over_tasks_is_the_documented_cluster_bootstrap(comparison: Comparison) -> None:
    """Recomputed here: per task, the sum of the pairs' differences and their number (tasks in
    sorted order), clusters drawn with numpy's generator at the recorded seed."""
    spec = comparison.bootstrap
    assert (spec.resamples, spec.seed, spec.confidence) == (10_000, 0, 0.95)
    # task-a: 0 + 0 + 1 + 1 = 2 over 4 pairs; task-b: 0 + 1 + 0 + 0 = 1 over 4; task-c: -1 + 0 + 1 + 1 = 1.
    sums, counts = np.array([2.0, 1.0, 1.0]), np.array([4.0, 4.0, 4.0])
    draws = np.random.default_rng(spec.seed).integers(0, 3, size=(spec.resamples, 3))
    low, high = np.percentile(sums[draws].sum(axis=1) / counts[draws].sum(axis=1), [2.5, 97.5])
    interval = paired(comparison, ALL_SCENARIOS).by_task
    assert interval is not None
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))
    # Three tasks of four pairs each: a resample's mean lies between 1/4 (no task-a) and 1/2.
    assert 0.25 <= interval.low < 1 / 3 < interval.high <= 0.5


def test_the_fault_endpoint_conditions_on_the_arms_own_fault_free_success(comparison: Comparison) -> None:
    endpoints = {(e.runtime, e.scenario, e.population): e for e in comparison.fault_endpoints}
    # Durable: fault-free successes a0 a1 b0 b1 c1 (c0 failed); of those, b1 fails under the kill.
    durable = endpoints["durable", "kill", "intention-to-treat"]
    assert (durable.fault_free, durable.pairs, durable.failed, durable.tasks) == ("none", 5, 1, 3)
    assert durable.rate == pytest.approx(0.2)
    # Baseline: fault-free successes a0 a1 b0 c0 c1 (b1 failed); a0, a1, c0 and c1 fail under it.
    baseline = endpoints["baseline", "kill", "intention-to-treat"]
    assert (baseline.pairs, baseline.failed, baseline.rate) == (5, 4, pytest.approx(0.8))
    # Per protocol, c1 (its kill never fired) is left out: 3 of 4.
    baseline_pp = endpoints["baseline", "kill", "per-protocol"]
    assert (baseline_pp.pairs, baseline_pp.failed) == (4, 3)
    # One fault scenario: no `all` row repeats it.
    assert ("durable", ALL_SCENARIOS, "intention-to-treat") not in endpoints


def test_intention_to_treat_beside_per_protocol_with_exclusions_by_reason(comparison: Comparison) -> None:
    rows = {(p.scenario, p.runtime): p for p in comparison.populations}
    kill = rows["kill", "baseline"]
    # Baseline under the kill: only b0 passes; c1 is invalid.
    assert (kill.intention_to_treat.successes, kill.intention_to_treat.valid_trials) == (1, 6)
    assert (kill.per_protocol.successes, kill.per_protocol.valid_trials) == (1, 5)
    assert [(e.reason, e.trials) for e in kill.exclusions] == [("the kill never fired", 1)]
    overall = rows[ALL_SCENARIOS, "baseline"]
    assert (overall.intention_to_treat.successes, overall.intention_to_treat.valid_trials) == (6, 12)
    assert rows["kill", "durable"].exclusions == []


def test_cost_per_trial_and_per_success_with_a_recomputed_interval(comparison: Comparison) -> None:
    costs = {(c.scenario, c.runtime): c for c in comparison.costs}
    # Durable: 12 trials of 1000 tokens, 10 successes (c0 none and b1 kill failed).
    durable = costs[ALL_SCENARIOS, "durable"]
    assert (durable.trials, durable.successes, durable.tasks) == (12, 10, 3)
    assert (durable.tokens.per_trial, durable.tokens.per_success) == (1000.0, 1200.0)
    assert durable.wall_seconds.per_success == pytest.approx(48.0 / 10)
    # Baseline: 6 x 1000 + 6 x 1500 = 15000 tokens, 6 successes.
    baseline = costs[ALL_SCENARIOS, "baseline"]
    assert (baseline.tokens.per_trial, baseline.tokens.per_success) == (1250.0, 2500.0)
    # The per-success interval: per task, tokens (4000 each) over successes (a 4, b 3, c 3).
    spec = comparison.bootstrap
    tokens, successes = np.array([4000.0, 4000.0, 4000.0]), np.array([4.0, 3.0, 3.0])
    draws = np.random.default_rng(spec.seed).integers(0, 3, size=(spec.resamples, 3))
    low, high = np.percentile(tokens[draws].sum(axis=1) / successes[draws].sum(axis=1), [2.5, 97.5])
    interval = durable.tokens.per_success_interval
    assert interval is not None
    assert (interval.low, interval.high) == (pytest.approx(low), pytest.approx(high))
    # The scripted provider: the cells are shown as outcomes too.
    assert comparison.deterministic
    cells = {(r.task_id, r.scenario, r.runtime): r.outcomes for r in comparison.replicates}
    assert cells["task-a", "kill", "baseline"] == [("duplicate effect", 1), ("fail: no outcome", 1)]


def test_cluster_bootstrap_needs_two_clusters_and_a_denominator() -> None:
    spec = BootstrapSpec(resamples=200)
    assert cluster_bootstrap([1.0, 0.0], [1.0, 1.0], ["t", "t"], spec) is None
    assert cluster_bootstrap([1.0, 2.0], [0.0, 0.0], ["t", "u"], spec) is None
    assert cluster_bootstrap([], [], [], spec) is None
    interval = cluster_bootstrap([1.0, 0.0], [1.0, 1.0], ["t", "u"], spec)
    assert interval is not None and 0.0 <= interval.low <= interval.high <= 1.0
    with pytest.raises(ValueError, match="as many as the units"):
        cluster_bootstrap([1.0], [1.0, 1.0], ["t"], spec)
