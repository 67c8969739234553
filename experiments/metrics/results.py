"""`ExperimentResults` and its parts: every figure of an experiment, per arm, fault kind and
task, and the trials left out or failed by the lab. `results.json` holds one."""

from __future__ import annotations

from pydantic import BaseModel, Field

from experiments.config import FaultKind
from experiments.metrics.comparison import Comparison
from experiments.metrics.counterfactual import CounterfactualMetrics
from experiments.metrics.failures import FailureKinds
from experiments.metrics.intervals import SuccessRate
from experiments.metrics.model_calls import ModelCallMetrics
from experiments.metrics.pass_hat import PassHat

# The scenario name of a runtime's figures over all its scenarios.
ALL_SCENARIOS = "all"


class ArmMetrics(BaseModel):
    """One runtime under one scenario (or under all of them: scenario `all`). Every figure but
    `trials`, `expected_trials` and `invalid_trials` is over the valid trials only."""

    runtime: str
    scenario: str
    # From the configuration, when it was given: how many trials the arm should have.
    expected_trials: int | None = None
    trials: int
    invalid_trials: int
    success: SuccessRate
    # Over all scenarios, each (task, scenario) counts as one task, named `task/scenario`.
    pass_hat: list[PassHat]
    # Why pass^k is not given (its tasks have different numbers of valid trials), or "".
    pass_hat_withheld: str = ""
    infrastructure_failures: int
    duplicate_effects: int
    unsafe_actions_executed: int
    # Effects made without the approval their rule requires (0 in results written before).
    unapproved_effects: int = 0
    verifier_rejections: int
    wall_time_median_s: float | None
    wall_time_mean_s: float | None
    tokens_total: int
    tokens_useful: int
    tokens_wasted: int
    cost_usd: float
    # Median over the trials that have a recovery time (a fault they recovered from), and their number.
    recovery_time_median_s: float | None
    recovered_trials: int


class FaultKindMetrics(BaseModel):
    fault_kind: FaultKind
    runtime: str
    scenarios: list[str]
    success: SuccessRate


class TaskMetrics(BaseModel):
    task_id: str
    runtime: str
    scenario: str
    trials: int
    invalid_trials: int
    infrastructure_failures: int
    success: SuccessRate


class InvalidTrial(BaseModel):
    trial_id: str
    task_id: str
    runtime: str
    scenario: str
    trial_index: int
    reason: str


class InfrastructureFailure(BaseModel):
    trial_id: str
    task_id: str
    runtime: str
    scenario: str
    trial_index: int
    error: str


class InvariantFinding(BaseModel):
    """A durable trial's invariant violation, or (`checked` False) why it could not be checked."""

    trial_id: str
    task_id: str
    scenario: str
    trial_index: int
    checked: bool
    finding: str


class CrashConsistency(BaseModel):
    """What a crash did, per arm and crash scenario (experiments.metrics.crashes)."""

    runtime: str
    scenario: str
    # Crash trials whose crash fired (valid), and those whose did not (a run that ended first).
    crashes: int
    not_fired: int
    # Crashed trials with an effect repeated, of `crashes`; every repeated effect, counted.
    repeated: SuccessRate
    duplicate_effects: int
    # Of the crashed trials whose fault-free trial succeeded, those that failed.
    paired_successes: int
    flips: int
    # Beyond the paired fault-free trial's, the mean over pairs (None without a pair).
    extra_model_calls: float | None
    extra_tokens: float | None
    recovered: int
    recovery_median_s: float | None
    recovery_p95_s: float | None

    @property
    def duplicates_per_100(self) -> float | None:
        return 100 * self.duplicate_effects / self.crashes if self.crashes else None


class SpendShare(BaseModel):
    """One part of an arm's model calls (or all of them), per success: summed over every trial
    the arm ran, divided by its successes."""

    calls: float
    tokens: float
    model_s: float


class ArmSpend(BaseModel):
    """Where an arm's model calls went (TrialRecord.spend), over every trial it ran, per success
    (experiments.metrics.spend). The figures are None without a success, or when a trial's
    record has no breakdown (`unrecorded`: made before it was counted)."""

    runtime: str
    scenario: str
    trials: int
    successes: int
    unrecorded: int
    # The goal and plan calls (durable only), the steps' proposals, what a crash made it redo.
    planning: SpendShare | None
    steps: SpendShare | None
    redone: SpendShare | None
    total: SpendShare | None
    # Prompt tokens per step call, over all the arm's step calls: the goal, the workspace, and
    # what history and feedback add to each step's prompt.
    step_prompt_tokens: float | None


class ExperimentResults(BaseModel):
    # Arms in scenario order, runtimes side by side within a scenario.
    arms: list[ArmMetrics]
    runtimes: list[ArmMetrics]
    fault_kinds: list[FaultKindMetrics]
    tasks: list[TaskMetrics]
    invalid_trials: list[InvalidTrial]
    infrastructure_failures: list[InfrastructureFailure]
    # Per runtime (empty in results written before it was measured).
    model_calls: list[ModelCallMetrics] = Field(default_factory=list)
    # What went wrong in the failed trials, per runtime.
    failures: list[FailureKinds] = Field(default_factory=list)
    # The lab's invariants over the durable trials' ledgers and histories: how many trials were
    # checked, and every violation found (0 and empty in results written before they were).
    invariants_checked: int = 0
    invariant_findings: list[InvariantFinding] = Field(default_factory=list)
    # Each durable trial beside its fork after step K, per task and scenario, when the config
    # asked for counterfactuals (empty otherwise).
    counterfactuals: list[CounterfactualMetrics] = Field(default_factory=list)
    # The arms compared on the (task, seed) trajectory: paired differences, the fault
    # endpoint, intention to treat, cost per success (None in results written before them).
    comparison: Comparison | None = None
    # Per arm and crash scenario (empty in results written before it was measured, or with no
    # crash scenario).
    crashes: list[CrashConsistency] = Field(default_factory=list)
    # Per arm, over all scenarios and over each fault-free one: where the model calls went (None
    # in results written before it was computed).
    spend: list[ArmSpend] | None = None

    @property
    def max_k(self) -> int:
        return max((len(arm.pass_hat) for arm in self.arms), default=0)
