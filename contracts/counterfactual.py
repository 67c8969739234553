"""A counterfactual of a trial: the trial's durable run forked after its step K and run live from
step K+1 with another provider (`ExperimentConfig.counterfactual`), judged as the trial was.
What the trial would have done had the model answered otherwise from step K+1 on."""

from __future__ import annotations

from pydantic import BaseModel, Field

from contracts.postconditions import PostconditionResult


class CounterfactualRecord(BaseModel):
    """One trial's fork, measured on its own end state (its own workspace and world)."""

    from_step: int
    # False when the trial could not be forked (it has fewer steps, its run failed for the
    # lab's reasons): `not_forked` says why, and nothing else is set.
    forked: bool = False
    not_forked: str = ""
    run_id: str = ""
    success: bool = False
    outcome: str = ""
    reason: str = ""
    judged: PostconditionResult | None = None
    steps: int = 0
    # What the fork spent itself, from step K+1 on (its usage less the carried steps').
    live_model_calls: int = 0
    live_tokens: int = 0
    wall_time_s: float = 0.0
    # The first step where the fork's proposal or outcome differs from the trial's; None: the
    # fork did what the trial did, step for step.
    first_difference: int | None = None
    duplicate_effects: int = 0
    # As TrialRecord.invariant_violations, over the fork's ledger and history.
    invariant_violations: list[str] | None = None
    # An error of the lab's while forking or running the fork (not the agent's).
    infrastructure_error: str | None = Field(default=None)
