"""pass^k, the tau-bench estimator: the chance that k trials of a task all succeed, averaged
over tasks."""

from __future__ import annotations

import statistics
from collections.abc import Mapping
from math import comb

from pydantic import BaseModel, Field


def pass_hat_k(per_task: Mapping[str, tuple[int, int]], k: int) -> float:
    """pass^k over tasks given as {task: (successes, trials)}; tasks with fewer than k trials
    are left out. Raises ValueError when no task has k trials."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    for task, (successes, n) in per_task.items():
        if not 0 <= successes <= n:
            raise ValueError(f"task {task}: successes must be within 0..n, got {successes} of {n}")
    eligible = [(successes, n) for successes, n in per_task.values() if n >= k]
    if not eligible:
        raise ValueError(f"no task has {k} trials")
    return statistics.fmean(comb(successes, k) / comb(n, k) for successes, n in eligible)


class PassHat(BaseModel):
    k: int
    value: float
    # Tasks in the mean, and those left out because they have fewer than k valid trials.
    tasks: int
    excluded_tasks: list[str] = Field(default_factory=list)


def differing_n(per_task: Mapping[str, tuple[int, int]]) -> str:
    """Why pass^k is not given over these tasks, or "" when every task has the same n: a mean
    over tasks of unequal n weighs them by chance, and tasks short of k would drop out."""
    counts = {n for _, n in per_task.values()}
    return f"n differs per task ({min(counts)}..{max(counts)})" if len(counts) > 1 else ""


def pass_hat_curve(per_task: Mapping[str, tuple[int, int]]) -> list[PassHat]:
    """pass^k for k = 1 .. the most trials any task has (empty when no task has a trial)."""
    most = max((n for _, n in per_task.values()), default=0)
    return [
        PassHat(
            k=k,
            value=pass_hat_k(per_task, k),
            tasks=sum(n >= k for _, n in per_task.values()),
            excluded_tasks=sorted(task for task, (_, n) in per_task.items() if n < k),
        )
        for k in range(1, most + 1)
    ]
