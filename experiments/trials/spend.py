"""`spend_of`: where a trial's model calls went, from what its run returned: the calls in no step
(the durable runtime's goal and plan), the steps' proposals, and what a crash made it spend again.
"""

from __future__ import annotations

from contracts import RunResult, Usage
from experiments.config import ExperimentRuntime
from experiments.trial_record import Spend, SpendPart


def spend_of(runtime: ExperimentRuntime, result: RunResult, lost: Usage) -> Spend:
    """`lost`: what attempts killed by a crash had spent (TrialOutcome.lost)."""
    if runtime != "durable":
        # The baseline loop asks the model for step proposals only (baseline/loop.py). Its steps
        # carry the answered attempt; the failed attempts it retried are in its usage alone, and
        # they were step proposals all the same.
        return Spend(steps=_part(result.usage), redone=_part(lost))
    # The durable runtime's steps carry their failed attempts too (workflows/subtask_steps.py):
    # what its usage has beyond them is the goal compilation and the plan's drafts and revisions
    # (workflows/agent_run.py, workflows/subtasks.py).
    steps = _part(sum((step.usage for step in result.steps), Usage()))
    everything = _part(result.usage)
    planning = SpendPart(
        calls=everything.calls - steps.calls,
        input_tokens=everything.input_tokens - steps.input_tokens,
        output_tokens=everything.output_tokens - steps.output_tokens,
        model_s=everything.model_s - steps.model_s,
    )
    return Spend(planning=planning, steps=steps, redone=_part(lost))


def _part(usage: Usage) -> SpendPart:
    return SpendPart(
        calls=usage.model_calls,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        model_s=usage.latency_ms / 1000,
    )
