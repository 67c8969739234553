"""budget-respected: no step began once a budget was spent. The workflow checks its budgets
before every proposal (`agent/budget.py`); a step that began anyway overran one. Counted as the
workflow counts: steps of the run and of the task, tokens and cost of every model call
(failed attempts included), the goal's and the plan's calls before the first step.

Wall time is not checked: the workflow measures it with its own clock less the time it waited
for a person, and neither source records that figure at each check; an estimate from event
times could accuse a run that was within its limit.
"""

from __future__ import annotations

from contracts import Usage
from lab.invariants.report import Evidence, Violation, violation

RULE = "budget-respected"


def check(evidence: Evidence) -> list[Violation]:
    story = evidence.history
    if story is None or story.budget is None:
        return []
    budget, carried = story.budget, story.carried
    task_limits = {task.id: task.max_steps for task in story.tasks}
    run_usage, task_id = carried.usage, carried.task_id
    task_steps, task_usage = carried.task_steps, carried.task_usage
    found: list[Violation] = []
    for told in story.steps:
        if told.task_id is not None and told.task_id != task_id:
            task_id, task_steps, task_usage = told.task_id, 0, Usage()
        task_limit = task_limits.get(task_id or "") or budget.max_steps_per_task
        spent = (
            ("run's", "steps", told.step - 1, budget.max_steps),
            ("task's", "steps", task_steps, task_limit),
            ("run's", "tokens", run_usage.total_tokens, budget.max_tokens),
            ("task's", "tokens", task_usage.total_tokens, budget.max_tokens_per_task),
            ("run's", "cost in USD", run_usage.cost_usd, budget.max_cost_usd),
            ("task's", "cost in USD", task_usage.cost_usd, budget.max_cost_usd_per_task),
        )
        for whose, what, amount, limit in spent:
            if limit is not None and amount >= limit:
                message = f"step {told.step} began after the {whose} budget of {limit:g} {what} was spent ({amount:g})"
                found.append(violation(RULE, message, told.proposal_at))
                break
        run_usage += told.usage
        task_steps, task_usage = task_steps + 1, task_usage + told.usage
    return found
