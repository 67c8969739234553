"""How the arms' comparison is written in a table cell, the same in `report.md` and in the
terminal summary."""

from __future__ import annotations

from experiments.metrics import CostFigure, Interval, PairedDifference


def signed(value: float) -> str:
    return f"{value:+.2f}"


def signed_interval(interval: Interval | None) -> str:
    return "—" if interval is None else f"[{interval.low:+.2f}, {interval.high:+.2f}]"


def share_interval(interval: Interval | None) -> str:
    return "—" if interval is None else f"[{interval.low:.2f}, {interval.high:.2f}]"


def amount(value: float | None, digits: int) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


def with_interval(value: float | None, interval: Interval | None, digits: int) -> str:
    """A figure and its interval, or "—" when there is no figure (a cost per success without a
    success)."""
    if value is None:
        return "—"
    if interval is None:
        return amount(value, digits)
    return f"{amount(value, digits)} [{amount(interval.low, digits)}, {amount(interval.high, digits)}]"


def per_trial(figure: CostFigure, digits: int) -> str:
    return with_interval(figure.per_trial, figure.per_trial_interval, digits)


def per_success(figure: CostFigure, digits: int) -> str:
    return with_interval(figure.per_success, figure.per_success_interval, digits)


def mcnemar(paired: PairedDifference) -> str:
    return "—" if paired.mcnemar_p is None else f"{paired.mcnemar_p:.3g}"
