"""The report's section on crash consistency (experiments.metrics.crashes): per arm and crash
scenario, what a SIGKILL of the process that runs the agent did."""

from __future__ import annotations

from collections.abc import Callable

from experiments.metrics import ExperimentResults
from experiments.report.cells import ci, fraction, rate, seconds

Table = Callable[[list[str], list[list[str]]], str]

_HEADERS = [
    *("scenario", "runtime", "crashes (not fired)", "trials with a repeated effect", "95% CI"),
    *("repeated effects per 100 crashes", "failed / succeeded without the crash"),
    *("extra model calls", "extra tokens", "back at work: median (p95)"),
]


def crash_sections(results: ExperimentResults, table: Table) -> list[str]:
    if not results.crashes:
        return []
    rows = []
    for row in results.crashes:
        per_100 = row.duplicates_per_100
        rows.append(
            [
                row.scenario,
                row.runtime,
                f"{row.crashes} ({row.not_fired})",
                f"{fraction(row.repeated)} ({rate(row.repeated)})",
                ci(row.repeated),
                "—" if per_100 is None else f"{per_100:.1f}",
                f"{row.flips}/{row.paired_successes}",
                "—" if row.extra_model_calls is None else f"{row.extra_model_calls:+.1f}",
                "—" if row.extra_tokens is None else f"{row.extra_tokens:+.0f}",
                f"{seconds(row.recovery_median_s)} ({seconds(row.recovery_p95_s)}), n={row.recovered}",
            ]
        )
    return [
        "### Crash consistency",
        "Over the crash trials whose crash fired. Extra model calls and tokens: beyond the arm's "
        "fault-free trial of the same task and seed (what the crash made it do again), the mean "
        "over pairs. Back at work: from the kill until the run worked again at the step where it "
        "died (durable: the first activity started after the kill; a baseline: its rerun's first "
        "live call at that step)."
        + (
            " With the scripted provider the trials of a cell are one trajectory k times: a point crash's k "
            "trials are copies, and the interval counts them as draws."
            if results.comparison is not None and results.comparison.deterministic
            else ""
        ),
        table(_HEADERS, rows),
    ]
