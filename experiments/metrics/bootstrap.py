"""The cluster bootstrap behind every interval of the arms' comparison (`compare.py`).

A figure is a ratio of sums over units (trials, or pairs of trials): a mean is a sum over units
of 1, a cost per success a sum of costs over a sum of successes. Units that share a cluster (a
task; a (task, seed) trajectory replayed under several faults) are not independent draws, so
the bootstrap draws whole clusters with replacement, as many as there are, each with all its
units (Miller, "Adding Error Bars to Evals", arXiv 2411.00640). The interval is the percentile
interval of the resampled figure.

The procedure, exactly (a test repeats it by hand): clusters in sorted order of their names;
`numpy.random.default_rng(seed).integers(0, C, size=(resamples, C))` draws them; each resample's
figure is the sum of its clusters' numerators over the sum of their denominators; resamples
whose denominator is 0 have no figure and are left out; `numpy.percentile` (linear) gives the
bounds at (1 - confidence) / 2 and 1 - (1 - confidence) / 2. With one cluster there is nothing to
resample, and no interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, Field


class BootstrapSpec(BaseModel):
    """How every interval of a comparison was drawn, kept with the figures."""

    resamples: int = Field(default=10_000, ge=1)
    seed: int = 0
    confidence: float = Field(default=0.95, gt=0, lt=1)


class Interval(BaseModel):
    low: float
    high: float


def cluster_bootstrap(
    numerators: Sequence[float], denominators: Sequence[float], clusters: Sequence[str], spec: BootstrapSpec
) -> Interval | None:
    """The percentile interval of sum(numerators) / sum(denominators), clusters resampled.
    None with fewer than two clusters, or when no resample has a denominator."""
    if not len(numerators) == len(denominators) == len(clusters):
        raise ValueError("numerators, denominators and clusters must be as many as the units")
    names = sorted(set(clusters))
    if len(names) < 2:
        return None
    codes = np.searchsorted(names, clusters)
    numerator = np.bincount(codes, weights=numerators, minlength=len(names))
    denominator = np.bincount(codes, weights=denominators, minlength=len(names))
    draws = np.random.default_rng(spec.seed).integers(0, len(names), size=(spec.resamples, len(names)))
    numerator_sums, denominator_sums = numerator[draws].sum(axis=1), denominator[draws].sum(axis=1)
    defined = denominator_sums > 0
    if not defined.any():
        return None
    figures = numerator_sums[defined] / denominator_sums[defined]
    tail = (1 - spec.confidence) / 2 * 100
    low, high = np.percentile(figures, [tail, 100 - tail])
    return Interval(low=float(low), high=float(high))
