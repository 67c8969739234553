"""Budgets, checked by workflow code before every proposal (the baseline checks the host-disk
budget alone, with `disk_exhausted`). Pure and deterministic."""

from __future__ import annotations

from dataclasses import dataclass

from contracts import DiskUse, RunBudget, Usage
from contracts.budget import mib
from contracts.counts import counted


@dataclass(frozen=True)
class Spent:
    steps: int
    usage: Usage
    # Wall time without the time spent waiting for a person.
    wall_s: float
    # What the run holds on the host's disk (a run's only, never a subtask's); None: not counted.
    disk: DiskUse | None = None
    # Claims of "done" its checks refused (a subtask's only).
    refused_claims: int = 0


def exhausted(budget: RunBudget, run: Spent, subtask: Spent, subtask_step_limit: int) -> str | None:
    """Why no further step may start, or None. The run's limits are checked first."""
    limits = (
        ("run's", "steps", run.steps, budget.max_steps),
        ("subtask's", "steps", subtask.steps, subtask_step_limit),
        ("run's", "tokens", run.usage.total_tokens, budget.max_tokens),
        ("subtask's", "tokens", subtask.usage.total_tokens, budget.max_tokens_per_subtask),
        ("run's", "cost in USD", run.usage.cost_usd, budget.max_cost_usd),
        ("subtask's", "cost in USD", subtask.usage.cost_usd, budget.max_cost_usd_per_subtask),
        ("run's", "wall-time seconds", run.wall_s, budget.max_wall_time_s),
        ("subtask's", "wall-time seconds", subtask.wall_s, budget.max_wall_time_s_per_subtask),
    )
    for whose, what, spent, limit in limits:
        if limit is not None and spent >= limit:
            # "a budget of 1 step", not "1 steps" (a cost in USD has no singular to take).
            what = what.removesuffix("s") if limit == 1 and what != "cost in USD" else what
            return f"the {whose} budget of {limit:g} {what} is spent ({spent:g})"
    if (claims := budget.max_refused_claims) is not None and subtask.refused_claims >= claims:
        return (
            f"the subtask's budget of {counted(claims, 'refused claim')} of done is spent: the model"
            f" claimed it done {counted(subtask.refused_claims, 'time')} and the checks found it not done"
        )
    return disk_exhausted(budget, run.disk) if run.disk is not None else None


def disk_exhausted(budget: RunBudget, disk: DiskUse) -> str | None:
    """Why the run may hold no more of the host's disk, naming what holds it, or None."""
    limit = budget.max_disk_bytes
    if limit is not None and disk.uncounted is not None:
        return f"the run's use of host disk cannot be held to its budget of {mib(limit)}: {disk.uncounted}"
    if limit is None or disk.total_bytes < limit:
        return None
    return f"the run's budget of {mib(limit)} of host disk is spent ({disk.describe()})"


def disk_left(budget: RunBudget, disk: DiskUse | None) -> int | None:
    """What a command may still add to the run's host disk; None where no budget applies."""
    if budget.max_disk_bytes is None or disk is None:
        return None
    return max(budget.max_disk_bytes - disk.total_bytes, 0)


def for_subtask(budget: RunBudget, run: Spent, step_limit: int) -> RunBudget:
    """A subtask's own budget: what is left of the run's at the subtask's start, with the per-subtask
    limits as they are. Subtasks that run at once each get the whole rest of the run's budget,
    so together they may overrun it by up to their per-subtask limits: the run checks its own
    budget again before it starts the next ones."""

    def left(limit: float | None, spent: float) -> float | None:
        return None if limit is None else max(limit - spent, 0.000_001)

    tokens = budget.max_tokens - run.usage.total_tokens if budget.max_tokens is not None else None
    disk = disk_left(budget, run.disk)
    return budget.model_copy(
        update={
            "max_steps": max(budget.max_steps - run.steps, 1),
            "max_steps_per_subtask": step_limit,
            "max_tokens": max(tokens, 1) if tokens is not None else None,
            "max_cost_usd": left(budget.max_cost_usd, run.usage.cost_usd),
            "max_wall_time_s": left(budget.max_wall_time_s, run.wall_s),
            # A subtask counts its own worktree and artifacts: the objects its checkpoints add
            # go to the repository it shares with its parent (checkpoints.add_worktree).
            "max_disk_bytes": budget.max_disk_bytes if disk is None else max(disk, 1),
        }
    )
