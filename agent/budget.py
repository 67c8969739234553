"""Budgets, checked by workflow code before every proposal. Pure and deterministic."""

from __future__ import annotations

from dataclasses import dataclass

from contracts import RunBudget, Usage


@dataclass(frozen=True)
class Spent:
    steps: int
    usage: Usage
    # Wall time without the time spent waiting for a person.
    wall_s: float


def exhausted(budget: RunBudget, run: Spent, task: Spent, task_step_limit: int) -> str | None:
    """Why no further step may start, or None. The run's limits are checked first."""
    limits = (
        ("run's", "steps", run.steps, budget.max_steps),
        ("task's", "steps", task.steps, task_step_limit),
        ("run's", "tokens", run.usage.total_tokens, budget.max_tokens),
        ("task's", "tokens", task.usage.total_tokens, budget.max_tokens_per_task),
        ("run's", "cost in USD", run.usage.cost_usd, budget.max_cost_usd),
        ("task's", "cost in USD", task.usage.cost_usd, budget.max_cost_usd_per_task),
        ("run's", "wall-time seconds", run.wall_s, budget.max_wall_time_s),
        ("task's", "wall-time seconds", task.wall_s, budget.max_wall_time_s_per_task),
    )
    for whose, what, spent, limit in limits:
        if limit is not None and spent >= limit:
            return f"the {whose} budget of {limit:g} {what} is spent ({spent:g})"
    return None
