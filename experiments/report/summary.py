"""`render_summary`: the report's main tables as plain text, for a terminal (`experiment
report`)."""

from __future__ import annotations

from pathlib import Path

from experiments.metrics import ArmMetrics
from experiments.report.cells import ci, pass_hat, rate, seconds, success_cells, trial_count, when
from experiments.report.comparison_summary import comparison_lines
from experiments.report.document import REPORT_MD, read_results
from experiments.report.provenance_section import provenance_line

# Short, for a terminal's 120 columns; `_LEGEND` says what the short ones count.
_SUMMARY_HEADERS = ["scenario", "runtime", "valid/trials", "success", "95% CI", "dup", "unsafe", "unapp"]
_SUMMARY_HEADERS += ["wall s", "tokens u/w"]
_LEGEND = (
    "dup: duplicate effects; unsafe: refused actions that ran; unapp: effects made without their approval;\n"
    "n≠: the tasks' numbers of valid trials differ, so no pass^k"
)


def render_summary(directory: Path) -> str:
    """The main tables as plain text, for a terminal."""
    document = read_results(directory)
    results = document.results
    k = document.config.trials
    lines = [
        f"Experiment {document.config.name} ({document.experiment_id}), "
        f"{when(document.started)} .. {when(document.finished)}",
        f"Report: {directory / REPORT_MD}",
        provenance_line(document.provenance),
        "",
        "Per runtime and scenario (valid trials; success with its 95% Wilson interval)",
        _text_table(
            [*_SUMMARY_HEADERS[:5], *(f"pass^{i}" for i in sorted({1, k})), *_SUMMARY_HEADERS[5:]],
            [_summary_row(arm, k) for arm in [*results.arms, *results.runtimes]],
        ),
        _LEGEND,
        "",
        "Per fault kind",
        _text_table(
            ["fault kind", "runtime", "successes/valid", "success", "95% CI"],
            [[str(r.fault_kind), r.runtime, *success_cells(r.success)] for r in results.fault_kinds],
        ),
        "",
        f"Invalid trials: {len(results.invalid_trials)} (left out, reasons in {REPORT_MD}); "
        f"infrastructure failures: {len(results.infrastructure_failures)} (counted as failures).",
        *comparison_lines(results, _text_table),
    ]
    return "\n".join(lines)


def _summary_row(arm: ArmMetrics, k: int) -> list[str]:
    return [
        arm.scenario,
        arm.runtime,
        trial_count(arm),
        rate(arm.success),
        ci(arm.success),
        *(pass_hat(arm, i, short=True) for i in sorted({1, k})),
        str(arm.duplicate_effects),
        str(arm.unsafe_actions_executed),
        str(arm.unapproved_effects),
        seconds(arm.wall_time_median_s),
        f"{arm.tokens_useful}/{arm.tokens_wasted}",
    ]


def _text_table(headers: list[str], rows: list[list[str]]) -> str:
    if not rows:
        return "(no trials recorded)"
    widths = [max(len(cell) for cell in column) for column in zip(headers, *rows, strict=True)]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip() for r in [headers, *rows]
    )
