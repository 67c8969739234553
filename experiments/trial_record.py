"""The raw record of every trial (`trials.jsonl` in its report directory, every figure of the
report traceable to it): what happened, measured on the real end state; and of its
counterfactual, the trial's durable run forked after its step K and run live from step K+1 with
another provider (`ExperimentConfig.counterfactual`), judged as the trial was: what the trial
would have done had the model answered otherwise from step K+1 on."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from contracts.postconditions import PostconditionResult
from contracts.usage import ModelCallTiming
from experiments.config import ExperimentRuntime, FaultKind


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


# What a step of a trajectory reached: a model call only, or a call that changed something (the
# workspace, or a service: `effect`) whose tool ran.
StepKind = Literal["model", "change", "effect"]


class CrashPoint(BaseModel):
    """Where a random crash was drawn (experiments.trials.random_crash), and what it found."""

    step: int
    point: Literal["model_call", "before_effect", "after_effect"]
    # The number drawn, and of how many (step, point) pairs the arm's fault-free trial reached.
    draw: float
    pairs: int
    # Whether the step's external effect had landed when the process died: False before it
    # acts, True after; None for a point that is no service call's.
    effect_landed: bool | None = None


class TimedCrash(BaseModel):
    """When a random-time crash was drawn (experiments.trials.random_time_crash), and what it
    found."""

    # The number drawn, the run time of the arm's fault-free trial it was drawn over, and the
    # moment it gives, in seconds from the run's start.
    draw: float
    run_s: float
    at_s: float
    # Where the moment is placed on the crash run: after its own `after_model_call`-th model
    # call has started, `offset_s` later (0 calls: `offset_s` from its start), as the moment
    # fell in the fault-free run's model-call timeline; so a run that the machine's load makes
    # faster or slower is crashed at the same point of its progress. Not `anchored`: the
    # fault-free trial has no timeline (a record made before it was kept), and the run is
    # killed `at_s` from its start.
    after_model_call: int = 0
    offset_s: float = 0.0
    anchored: bool = False
    # Whether it fired (False: the run had ended before its moment); when it did, the step the
    # run was at, and how many effects the run had made in its world by then (a service task).
    fired: bool = False
    step: int | None = None
    effects_in_world: int | None = None


class TrialBehaviour(BaseModel):
    """What the agent did in a trial, counted from its steps: what a failure is told apart by."""

    # Committed calls that changed something: files written or edited, external effects.
    changes: int = 0
    commands: int = 0
    # Proposals the verifier refused as the same call on unchanged files.
    repeated_actions: int = 0
    # Answers that were not a usable proposal (not JSON, an unknown tool, bad arguments).
    unusable_answers: int = 0
    # "Done" said while the task's checks did not hold (the durable runtime refuses it).
    finish_refused: int = 0


class SpendPart(BaseModel):
    """What one part of a trial's model calls cost: calls, prompt and generated tokens, seconds."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    model_s: float = 0.0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def __add__(self, other: SpendPart) -> SpendPart:
        return SpendPart(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            model_s=self.model_s + other.model_s,
        )


class Spend(BaseModel):
    """Where a trial's model calls went (experiments.spend): together they are the record's
    `model_calls`, `tokens` and `model_time_s`."""

    # Calls in no step: the durable runtime's goal compilation and plan drafts and revisions.
    planning: SpendPart = Field(default_factory=SpendPart)
    # The steps' proposal calls, failed attempts included.
    steps: SpendPart = Field(default_factory=SpendPart)
    # What attempts killed by a crash had spent, and a naive rerun spent again.
    redone: SpendPart = Field(default_factory=SpendPart)

    @property
    def total(self) -> SpendPart:
        return self.planning + self.steps + self.redone


class TrialRecord(BaseModel):
    """One (task, runtime, scenario, trial): what happened, measured on the real end state."""

    experiment_id: str
    trial_id: str
    task_id: str
    task_tags: list[str] = Field(default_factory=list)
    runtime: ExperimentRuntime
    scenario: str
    fault_kind: FaultKind
    trial_index: int
    seed: int
    run_ids: list[str] = Field(default_factory=list)
    # Valid: every configured fault fired. An invalid trial says why and is reported apart.
    valid: bool = True
    invalid_reason: str = ""
    # Success: the task's postconditions hold on the real end state, no effect repeated and none
    # was made without the approval its rule requires.
    success: bool = False
    outcome: str = ""
    reason: str = ""
    judged: PostconditionResult | None = None
    steps: int = 0
    model_calls: int = 0
    # Of `model_calls`, those answered from a cassette (replay-or-live): the rest ran live.
    replayed_calls: int = 0
    # The local server's account of each live call, in order (a local model at concurrency 1:
    # its log is then this trial's alone).
    call_timings: list[ModelCallTiming] = Field(default_factory=list)
    tokens: int = 0
    tokens_wasted: int = 0
    cost_usd: float = 0.0
    # Time spent waiting for the model, over every call.
    model_time_s: float = 0.0
    wall_time_s: float = 0.0
    # When the run started (epoch seconds: a durable run's workflow start event, a baseline's
    # first process), and when each of its model calls started, in seconds from then (a durable
    # run's proposal activities scheduled, a baseline's first attempt's live model calls): what
    # a random-time crash is placed by (experiments.trials.random_time_crash). None and empty in
    # records made before they were kept, or when the lab could not read them.
    run_started_at: float | None = None
    model_calls_started_s: list[float] = Field(default_factory=list)
    duplicate_effects: int = 0
    unsafe_actions_executed: int = 0
    # Calls that needed a person's approval and ran without one (experiments.measure), whatever
    # the runtime said of them: any fails the trial. 0 in records made before it was counted.
    unapproved_effects: int = 0
    verifier_rejections: int = 0
    # None in records made before it was counted.
    behaviour: TrialBehaviour | None = None
    # Where its calls, tokens and model time went. None in records made before it was counted.
    spend: Spend | None = None
    recovery_time_s: float | None = None
    faults_configured: list[str] = Field(default_factory=list)
    faults_fired: list[str] = Field(default_factory=list)
    # What each step reached (experiments.trials.random_crash): a fault-free trial's is what a
    # random crash of the same arm, task and seed is drawn on. Empty in older records.
    trajectory: list[StepKind] = Field(default_factory=list)
    # A random crash: where it was drawn, and whether the step's effect had landed.
    crash: CrashPoint | None = None
    # A random-time crash: when it was drawn, and where it found the run.
    timed_crash: TimedCrash | None = None
    # The lab's invariants over a durable trial's ledger and history (lab/invariants): each
    # violation as "rule: what (events)". None: not checked (a baseline trial, a record made
    # before they were, or one the lab could not read: `invariants_unchecked` says why).
    invariant_violations: list[str] | None = None
    invariants_unchecked: str = ""
    # An infrastructure failure (the lab, not the agent): counted as a failure, shown apart.
    infrastructure_error: str | None = None
    # Its fork after step K, when the config asks for counterfactuals (a durable trial only).
    counterfactual: CounterfactualRecord | None = None

    @property
    def tokens_useful(self) -> int:
        return self.tokens - self.tokens_wasted
