"""How a figure is written in a table cell, the same in `report.md` and in the terminal summary."""

from __future__ import annotations

from datetime import datetime

from experiments.metrics import ArmMetrics, SuccessRate


def success_cells(success: SuccessRate) -> list[str]:
    return [fraction(success), rate(success), ci(success)]


def rate(success: SuccessRate) -> str:
    return "—" if success.rate is None else f"{success.rate:.2f}"


def ci(success: SuccessRate) -> str:
    return f"[{success.ci_low:.2f}, {success.ci_high:.2f}]"


def fraction(success: SuccessRate) -> str:
    return f"{success.successes}/{success.valid_trials}"


def trial_count(arm: ArmMetrics) -> str:
    count = f"{arm.trials - arm.invalid_trials}/{arm.trials}"
    if arm.expected_trials is not None and arm.expected_trials != arm.trials:
        count += f" (expected {arm.expected_trials})"
    return count


def pass_hat(arm: ArmMetrics, k: int, short: bool = False) -> str:
    """pass^k, or why it is not given; `short` for a terminal's narrow columns."""
    if arm.pass_hat_withheld:
        return "n≠" if short else "n differs per task"
    point = next((p for p in arm.pass_hat if p.k == k), None)
    if point is None:
        return "—"
    return f"{point.value:.2f}" + ("†" if point.excluded_tasks else "")


def seconds(value: float | None) -> str:
    return "—" if value is None else f"{value:.2f}"


def when(moment: datetime) -> str:
    return moment.isoformat(sep=" ", timespec="seconds")
