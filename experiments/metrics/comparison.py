"""`Comparison` and its parts: the arms compared on the unit of analysis, the (task, seed)
trajectory, as `results.json` holds them (`compare.py` computes them)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from experiments.metrics.bootstrap import BootstrapSpec, Interval
from experiments.metrics.intervals import SuccessRate

# Intention to treat: every trial, an invalid one (its fault never fired) counted as what
# happened. Per protocol: valid trials only; for pairs, pairs whose trials are both valid.
Population = Literal["intention-to-treat", "per-protocol"]


class PairedDifference(BaseModel):
    """Arm `a` against arm `b` on paired trials: the same task, scenario and trial index (so
    the same seed). `difference` is the mean over pairs of success(a) - success(b)."""

    a: str
    b: str
    scenario: str
    population: Population
    pairs: int
    tasks: int
    trajectories: int
    a_successes: int
    b_successes: int
    difference: float
    # Tasks resampled with all their pairs; (task, seed) trajectories resampled with theirs
    # (over one scenario, a trajectory has one pair).
    by_task: Interval | None
    by_trajectory: Interval | None
    # Discordant pairs: a succeeded and b failed, and the other way round. McNemar's exact
    # test (two-sided binomial of `a_only` in `a_only + b_only` at 1/2), None without any.
    a_only: int
    b_only: int
    mcnemar_p: float | None


class FaultEndpoint(BaseModel):
    """P(fail under fault | succeeded without it), for one arm: its trials of a faulted
    scenario paired with its fault-free trials of the same task and seed; among pairs whose
    fault-free trial succeeded, the share whose faulted trial failed."""

    runtime: str
    scenario: str
    fault_free: str
    population: Population
    # Pairs whose fault-free trial succeeded, and those of them that failed under the fault.
    pairs: int
    failed: int
    rate: float
    tasks: int
    by_task: Interval | None


class Exclusion(BaseModel):
    reason: str
    trials: int


class ArmPopulations(BaseModel):
    """One arm's success over every trial (intention to treat) beside over its valid trials
    (per protocol), and the trials left out of the latter, by reason."""

    runtime: str
    scenario: str
    intention_to_treat: SuccessRate
    per_protocol: SuccessRate
    exclusions: list[Exclusion] = Field(default_factory=list)


class CostFigure(BaseModel):
    """A cost summed over an arm's trials, per trial and per success (None without a success),
    each with its interval over tasks."""

    per_trial: float
    per_trial_interval: Interval | None
    per_success: float | None
    per_success_interval: Interval | None


class ArmCost(BaseModel):
    """What an arm spent, over every trial it ran (an invalid trial spent too)."""

    runtime: str
    scenario: str
    trials: int
    successes: int
    tasks: int
    tokens: CostFigure
    model_seconds: CostFigure
    wall_seconds: CostFigure


class ReplicateOutcomes(BaseModel):
    """A deterministic cell's k trials: each outcome and how many trials had it, most
    frequent first. One outcome: one trajectory, k times."""

    task_id: str
    scenario: str
    runtime: str
    outcomes: list[tuple[str, int]]


class Comparison(BaseModel):
    bootstrap: BootstrapSpec = Field(default_factory=BootstrapSpec)
    # For every pair of arms (in configured order), every scenario both ran and `all`.
    paired: list[PairedDifference] = Field(default_factory=list)
    fault_endpoints: list[FaultEndpoint] = Field(default_factory=list)
    # Per arm and scenario, and per runtime over all scenarios.
    populations: list[ArmPopulations] = Field(default_factory=list)
    costs: list[ArmCost] = Field(default_factory=list)
    # The scripted provider: without model noise, the k trials of a cell are one trajectory k
    # times, so `replicates` shows their outcomes (model-noise scenarios vary, and are left out).
    deterministic: bool = False
    replicates: list[ReplicateOutcomes] = Field(default_factory=list)
