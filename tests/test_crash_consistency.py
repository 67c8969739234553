"""Crash consistency computed from a small hand-made set of trial records: repeated effects per
100 crashes, flips against the paired fault-free trial, work redone, time back at work; and the
journaled arm read against the naive arm's fault-free trials when it has none of its own."""

from __future__ import annotations

import pytest

from experiments.config import FaultKind
from experiments.metrics import ALL_SCENARIOS, summarize
from experiments.metrics.crashes import crash_consistency
from experiments.report.crash_section import crash_sections
from experiments.trial_record import TrialRecord


def _trial(runtime: str, task: str, scenario: str, kind: FaultKind, **figures: object) -> TrialRecord:
    return TrialRecord(
        experiment_id="x",
        trial_id=f"x-{task}-{runtime}-{scenario}",
        task_id=task,
        runtime=runtime,  # type: ignore[arg-type]
        scenario=scenario,
        fault_kind=kind,
        trial_index=0,
        seed=0,
        **figures,  # type: ignore[arg-type]
    )


NONE, CRASH, TIMED = FaultKind.NONE, FaultKind.RANDOM_CRASH, FaultKind.RANDOM_TIME_CRASH
TRIALS = [
    _trial("baseline", "a", "none", NONE, success=True, model_calls=4, tokens=400),
    _trial("baseline", "b", "none", NONE, success=True, model_calls=6, tokens=600),
    _trial("baseline", "c", "none", NONE, success=False, model_calls=8, tokens=800),
    # Killed after its refund and run again from the start: the refund repeated, a flip.
    _trial(
        "baseline",
        "a",
        "crash",
        CRASH,
        success=False,
        duplicate_effects=1,
        model_calls=7,
        tokens=700,
        recovery_time_s=3.0,
    ),
    _trial("baseline", "b", "crash", CRASH, success=True, model_calls=8, tokens=800, recovery_time_s=1.0),
    _trial("baseline", "c", "crash", CRASH, success=False, model_calls=9, tokens=900, recovery_time_s=2.0),
    _trial("baseline", "a", "timed", TIMED, valid=False, invalid_reason="the run ended before its crash moment"),
    _trial("baseline", "b", "timed", TIMED, success=True, model_calls=6, tokens=650, recovery_time_s=5.0),
    # The journaled loop has no fault-free trial of its own: read against the naive one's.
    _trial("baseline-journal", "a", "crash", CRASH, success=True, model_calls=4, tokens=400, recovery_time_s=0.5),
]


def test_crash_consistency_from_hand_made_trials() -> None:
    rows = {(r.runtime, r.scenario): r for r in crash_consistency(TRIALS, ["baseline", "baseline-journal"])}
    assert set(rows) == {
        ("baseline", "crash"),
        ("baseline", "timed"),
        ("baseline", ALL_SCENARIOS),
        ("baseline-journal", "crash"),
    }
    crash = rows[("baseline", "crash")]
    assert (crash.crashes, crash.not_fired, crash.duplicate_effects) == (3, 0, 1)
    assert crash.duplicates_per_100 == pytest.approx(100 / 3)
    assert (crash.repeated.successes, crash.repeated.valid_trials) == (1, 3)
    # Wilson's 95% interval for 1 of 3.
    assert (crash.repeated.ci_low, crash.repeated.ci_high) == (
        pytest.approx(0.0615, abs=1e-4),
        pytest.approx(0.7923, abs=1e-4),
    )
    assert (crash.flips, crash.paired_successes) == (1, 2)  # c failed without the crash too
    assert crash.extra_model_calls == pytest.approx((3 + 2 + 1) / 3)
    assert crash.extra_tokens == pytest.approx((300 + 200 + 100) / 3)
    assert (crash.recovered, crash.recovery_median_s) == (3, 2.0)
    assert crash.recovery_p95_s == pytest.approx(2.9)

    timed = rows[("baseline", "timed")]
    assert (timed.crashes, timed.not_fired, timed.flips, timed.paired_successes) == (1, 1, 0, 1)
    every = rows[("baseline", ALL_SCENARIOS)]
    assert (every.crashes, every.not_fired, every.duplicate_effects) == (4, 1, 1)

    journaled = rows[("baseline-journal", "crash")]
    assert (journaled.crashes, journaled.flips, journaled.paired_successes) == (1, 0, 1)
    assert journaled.extra_model_calls == 0 and journaled.duplicate_effects == 0


def test_the_report_shows_crash_consistency_per_arm() -> None:
    results = summarize(TRIALS)
    assert results.crashes and results.crashes == crash_consistency(TRIALS, ["baseline", "baseline-journal"])
    shown = "\n".join(crash_sections(results, lambda headers, rows: "\n".join(" | ".join(r) for r in rows)))
    assert "### Crash consistency" in shown
    assert "crash | baseline | 3 (0) | 1/3 (0.33) | [0.06, 0.79] | 33.3 | 1/2 | +2.0 | +200 | 2.00 (2.90), n=3" in shown
    # Without a crash scenario there is no section.
    assert crash_sections(summarize(TRIALS[:3]), lambda h, r: "") == []
