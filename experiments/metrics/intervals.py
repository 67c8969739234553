"""A success rate and its Wilson score interval."""

from __future__ import annotations

from math import sqrt
from statistics import NormalDist

from pydantic import BaseModel


def wilson_interval(successes: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion; (0, 1) when there is no trial."""
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..n, got {successes} of {n}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    if n == 0:
        return (0.0, 1.0)
    z = NormalDist().inv_cdf(1 - (1 - confidence) / 2)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half_width = z * sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    # At 0 or n successes the bound is exactly the rate; computed, it is off by rounding
    # (2.8e-17 for 0 of 5), and a plot's error bar of -2.8e-17 is refused.
    low = 0.0 if successes == 0 else max(0.0, centre - half_width)
    high = 1.0 if successes == n else min(1.0, centre + half_width)
    return (low, high)


class SuccessRate(BaseModel):
    successes: int
    valid_trials: int
    # None when there is no valid trial; the interval is then (0, 1).
    rate: float | None
    ci_low: float
    ci_high: float


def success_rate(successes: int, valid_trials: int) -> SuccessRate:
    low, high = wilson_interval(successes, valid_trials)
    rate = successes / valid_trials if valid_trials else None
    return SuccessRate(successes=successes, valid_trials=valid_trials, rate=rate, ci_low=low, ci_high=high)
