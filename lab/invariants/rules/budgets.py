"""budget-respected: no step began once a budget was spent. The workflow checks its budgets
before every proposal (`agent/budget.py`); a step that began anyway overran one. Counted as the
workflow counts: steps of the run and of the subtask, tokens and cost of every model call
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
    subtask_limits = {subtask.id: subtask.max_steps for subtask in story.subtasks}
    run_usage, subtask_id = carried.usage, carried.subtask_id
    subtask_steps, subtask_usage = carried.subtask_steps, carried.subtask_usage
    found: list[Violation] = []
    for told in story.steps:
        if told.subtask_id is not None and told.subtask_id != subtask_id:
            subtask_id, subtask_steps, subtask_usage = told.subtask_id, 0, Usage()
        subtask_limit = subtask_limits.get(subtask_id or "") or budget.max_steps_per_subtask
        spent = (
            ("run's", "steps", told.step - 1, budget.max_steps),
            ("subtask's", "steps", subtask_steps, subtask_limit),
            ("run's", "tokens", run_usage.total_tokens, budget.max_tokens),
            ("subtask's", "tokens", subtask_usage.total_tokens, budget.max_tokens_per_subtask),
            ("run's", "cost in USD", run_usage.cost_usd, budget.max_cost_usd),
            ("subtask's", "cost in USD", subtask_usage.cost_usd, budget.max_cost_usd_per_subtask),
        )
        for whose, what, amount, limit in spent:
            if limit is not None and amount >= limit:
                message = f"step {told.step} began after the {whose} budget of {limit:g} {what} was spent ({amount:g})"
                found.append(violation(RULE, message, told.proposal_at))
                break
        run_usage += told.usage
        subtask_steps, subtask_usage = subtask_steps + 1, subtask_usage + told.usage
    return found
