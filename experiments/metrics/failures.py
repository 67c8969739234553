"""What went wrong in the failed trials, by kind, per runtime: told apart by what the agent did
(its `TrialBehaviour`) and how its run ended. The first kind that fits a trial is its kind."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from pydantic import BaseModel

from experiments.metrics.counting import counts_as_success
from experiments.trial_record import TrialRecord

LAB_FAILED = "the lab failed (an infrastructure error)"
CHANGED_NOTHING = "never changed a file or called a service"
SAID_DONE = "said done while the checks did not hold"
OUT_OF_STEPS = "changed something, ran out of steps before the checks held"
REPEATED_EFFECT = "an effect repeated"
UNAPPROVED_EFFECT = "an effect made without the approval its rule requires"


class FailureKinds(BaseModel):
    runtime: str
    failed: int
    # (kind, trials), most frequent first.
    kinds: list[tuple[str, int]]
    # Over the failed trials that counted their steps (`counted` of them): how often the model
    # repeated itself, answered unusably, or said done too early.
    counted: int
    repeated_actions: int
    unusable_answers: int
    finish_refused: int


def failure_kinds(trials: list[TrialRecord], runtimes: Iterable[str]) -> list[FailureKinds]:
    summaries = []
    for runtime in runtimes:
        failed = [t for t in trials if t.runtime == runtime and t.valid and not counts_as_success(t)]
        if not failed:
            continue
        kinds = Counter(failure_kind(trial) for trial in failed)
        summaries.append(
            FailureKinds(
                runtime=runtime,
                failed=len(failed),
                kinds=sorted(kinds.items(), key=lambda item: (-item[1], item[0])),
                counted=sum(t.behaviour is not None for t in failed),
                repeated_actions=sum(t.behaviour.repeated_actions for t in failed if t.behaviour),
                unusable_answers=sum(t.behaviour.unusable_answers for t in failed if t.behaviour),
                finish_refused=sum(t.behaviour.finish_refused for t in failed if t.behaviour),
            )
        )
    return summaries


def failure_kind(trial: TrialRecord) -> str:
    if trial.infrastructure_error is not None:
        return LAB_FAILED
    if trial.duplicate_effects:
        return REPEATED_EFFECT
    if trial.unapproved_effects:
        return UNAPPROVED_EFFECT
    if trial.behaviour is not None and trial.behaviour.changes == 0:
        return CHANGED_NOTHING
    if trial.outcome == "FAILED" and trial.reason.startswith("acceptance failed"):
        return SAID_DONE
    if trial.outcome == "BUDGET_EXHAUSTED":
        return OUT_OF_STEPS
    return f"{trial.outcome.lower() or 'no outcome'}: {trial.reason[:80]}"
