"""Crash consistency, per arm and crash scenario: what a SIGKILL of the process that runs the
agent did. Over the trials whose crash fired: how many repeated an external effect (per 100
crashes, with a Wilson interval on the share of crashed trials that did), how many a crash made
fail that succeeded without it (paired with the arm's fault-free trial of the same task and
seed), what the crash made it spend again (model calls and tokens beyond that fault-free
trial's), and how long until the run was back at work where it died."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from experiments.config import CRASH_KINDS, FAULT_FREE_ARMS, FaultKind
from experiments.metrics.counting import counts_as_success
from experiments.metrics.intervals import success_rate
from experiments.metrics.results import ALL_SCENARIOS, CrashConsistency
from experiments.trial_record import TrialRecord


def crash_consistency(trials: Sequence[TrialRecord], runtimes: Sequence[str]) -> list[CrashConsistency]:
    rows = []
    for runtime in runtimes:
        crashed = [t for t in trials if t.runtime == runtime and t.fault_kind in CRASH_KINDS]
        scenarios = list(dict.fromkeys(t.scenario for t in crashed))
        free = _fault_free(trials, runtime)
        rows += [_row(runtime, s, [t for t in crashed if t.scenario == s], free) for s in scenarios]
        if len(scenarios) > 1:
            rows.append(_row(runtime, ALL_SCENARIOS, crashed, free))
    return rows


def _fault_free(trials: Sequence[TrialRecord], runtime: str) -> dict[tuple[str, int], TrialRecord]:
    """The arm's own fault-free trials, else those of the arm its crashes are drawn on."""
    found: dict[tuple[str, int], TrialRecord] = {}
    for arm in FAULT_FREE_ARMS.get(runtime, (runtime,)):
        for t in trials:
            if t.runtime == arm and t.fault_kind == FaultKind.NONE and t.valid:
                found.setdefault((t.task_id, t.trial_index), t)
    return found


def _row(
    runtime: str, scenario: str, trials: list[TrialRecord], free: dict[tuple[str, int], TrialRecord]
) -> CrashConsistency:
    fired = [t for t in trials if t.valid]
    pairs = [(t, clean) for t in fired if (clean := free.get((t.task_id, t.trial_index))) is not None]
    succeeded = [t for t, clean in pairs if counts_as_success(clean)]
    recoveries = [t.recovery_time_s for t in fired if t.recovery_time_s is not None]
    return CrashConsistency(
        runtime=runtime,
        scenario=scenario,
        crashes=len(fired),
        not_fired=len(trials) - len(fired),
        repeated=success_rate(sum(t.duplicate_effects > 0 for t in fired), len(fired)),
        duplicate_effects=sum(t.duplicate_effects for t in fired),
        paired_successes=len(succeeded),
        flips=sum(not counts_as_success(t) for t in succeeded),
        extra_model_calls=_mean([t.model_calls - clean.model_calls for t, clean in pairs]),
        extra_tokens=_mean([t.tokens - clean.tokens for t, clean in pairs]),
        recovered=len(recoveries),
        recovery_median_s=float(np.median(recoveries)) if recoveries else None,
        recovery_p95_s=float(np.percentile(recoveries, 95)) if recoveries else None,
    )


def _mean(values: list[int]) -> float | None:
    return float(np.mean(values)) if values else None
