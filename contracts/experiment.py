"""An experiment: its configuration (what to run, how often, under which faults) and the raw
record of every trial. Both runtimes get the same tasks, provider, seeds and faults."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.budget import RunBudget
from contracts.counterfactual import CounterfactualRecord
from contracts.postconditions import PostconditionResult
from contracts.provider import NoiseConfig
from contracts.usage import ModelCallTiming

ExperimentRuntime = Literal["durable", "baseline", "baseline+verifier"]


class FaultKind(StrEnum):
    NONE = "none"
    # SIGKILL the process that reaches `point` (durable: the worker, replaced by another;
    # baseline: the loop's own process, run again by hand on the same trial).
    KILL = "kill"
    # Stop the Temporal server and start it again once the run has reached `after_step`.
    SERVER_RESTART = "server_restart"
    # Model faults through the noisy provider.
    MODEL_NOISE = "model_noise"
    # A tool call that fails transiently once, or times out once, at `point`.
    TOOL_ERROR = "tool_error"
    TOOL_TIMEOUT = "tool_timeout"


# Where a fault can fire, for each runtime.
FAULT_POINTS: dict[str, frozenset[str]] = {
    "durable": frozenset({"model_call", "tool_execution", "after_effect", "server"}),
    "baseline": frozenset({"model_call", "tool_execution", "after_effect"}),
    "baseline+verifier": frozenset({"model_call", "tool_execution", "after_effect"}),
}


class FaultScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    kind: FaultKind = FaultKind.NONE
    point: Literal["model_call", "tool_execution", "after_effect"] | None = None
    # Narrow where a kill or tool fault fires: a step number, a tool name.
    step: int | None = Field(default=None, ge=1)
    tool: str | None = None
    after_step: int = Field(default=1, ge=1)
    noise: NoiseConfig | None = None
    # Only these tasks / runtimes (default: all of the experiment's).
    tasks: list[str] | None = None
    runtimes: list[ExperimentRuntime] | None = None

    @model_validator(mode="after")
    def _complete(self) -> FaultScenario:
        needs_point = self.kind in (FaultKind.KILL, FaultKind.TOOL_ERROR, FaultKind.TOOL_TIMEOUT)
        if needs_point and self.point is None:
            raise ValueError(f"a {self.kind} fault needs a point: model_call, tool_execution or after_effect")
        if self.kind in (FaultKind.TOOL_ERROR, FaultKind.TOOL_TIMEOUT) and self.point == "model_call":
            raise ValueError(f"a {self.kind} fault fires in a tool, not at model_call")
        if self.kind == FaultKind.MODEL_NOISE and self.noise is None:
            raise ValueError("a model_noise fault needs `noise` rates")
        return self

    @property
    def where(self) -> str | None:
        """The fault point, as FAULT_POINTS names it."""
        if self.kind == FaultKind.SERVER_RESTART:
            return "server"
        return self.point


class ProviderSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["scripted", "openai", "local"] = "scripted"
    model: str | None = None
    base_url: str | None = None
    # A model's answers kept in a file (a path relative to the project root): record once, then
    # replay where a trial's request was recorded and ask the model where the trial diverged.
    cassette: str | None = None
    cassette_mode: Literal["record", "replay", "replay_or_live"] = "replay_or_live"
    # Sampling temperature (None: the provider's, 0). At 0 every seed gives the same trajectory,
    # and k trials of an arm are one trial k times.
    temperature: float | None = Field(default=None, ge=0, le=2)

    @model_validator(mode="after")
    def _cassette_needs_a_model(self) -> ProviderSpec:
        if self.cassette is not None and self.kind == "scripted":
            raise ValueError("a cassette records a model's answers: the scripted provider has none")
        return self


class CounterfactualSpec(BaseModel):
    """Fork every durable trial after its step `from_step` once it has ended, and run the fork
    live from step `from_step + 1` with `provider` (the scripted kind: each task's own script).
    Forks run while the experiment's cluster holds the trials' histories and worlds."""

    model_config = ConfigDict(extra="forbid")

    from_step: int = Field(ge=0)
    provider: ProviderSpec = Field(default_factory=ProviderSpec)

    @model_validator(mode="after")
    def _provider_complete(self) -> CounterfactualSpec:
        if self.provider.kind == "openai" and not self.provider.model:
            raise ValueError("provider: the openai kind needs a model")
        return self


class CounterfactualConfig(BaseModel):
    """Counterfactuals of an experiment recorded earlier: every durable trial of it forked after
    step K and run on with another provider, from the histories and worlds its report directory
    keeps (`record/`). `of`: the experiment's id, the path of its report directory, or a config
    name (its latest experiment)."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    description: str = ""
    of: str = Field(min_length=1)
    counterfactual: CounterfactualSpec
    concurrency: int = Field(default=1, ge=1, le=16)


class ExperimentConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    description: str = ""
    tasks: list[str] = Field(min_length=1)
    # Narrow `tasks` (often `all`) to the tasks that carry every one of these tags; the
    # config loader resolves it against the catalog, and `tasks` holds the result.
    tags: list[str] = Field(default_factory=list)
    runtimes: list[ExperimentRuntime] = Field(min_length=1)
    # k: trials per (task, runtime, scenario).
    trials: int = Field(ge=1)
    provider: ProviderSpec = Field(default_factory=ProviderSpec)
    # Trial i of every arm uses seed + i: both runtimes see the same seeds.
    seed: int = 0
    scenarios: list[FaultScenario] = Field(default_factory=lambda: [FaultScenario(name="none")])
    concurrency: int = Field(default=1, ge=1, le=16)
    budget: RunBudget | None = None
    # Durable trials run their plan's independent tasks as child runs, at once (the baseline
    # stays one loop): what parallel subtasks change under faults, measured as everything is.
    parallel_subtasks: bool = False
    counterfactual: CounterfactualSpec | None = None

    def runs(self, scenario: FaultScenario, runtime: ExperimentRuntime) -> bool:
        """Whether the experiment runs this scenario on this runtime: the scenario names it (or
        all), and the runtime has the fault's point (the baseline has no server to restart)."""
        if runtime not in (scenario.runtimes or self.runtimes):
            return False
        return scenario.where is None or scenario.where in FAULT_POINTS[runtime]

    @model_validator(mode="after")
    def _coherent(self) -> ExperimentConfig:
        names = [scenario.name for scenario in self.scenarios]
        if len(set(names)) != len(names):
            raise ValueError(f"scenario names repeat: {', '.join(sorted(names))}")
        for index, scenario in enumerate(self.scenarios):
            runtimes = scenario.runtimes or self.runtimes
            where = scenario.where
            if where is not None and not any(where in FAULT_POINTS[runtime] for runtime in runtimes):
                raise ValueError(
                    f"scenarios.{index}: no runtime among {', '.join(runtimes)} has the fault point {where!r}"
                )
        if self.counterfactual is not None:
            self._counterfactual_coherent(self.counterfactual)
        return self

    def _counterfactual_coherent(self, counterfactual: CounterfactualSpec) -> None:
        if "durable" not in self.runtimes:
            raise ValueError("counterfactual: only durable trials can be forked; add durable to `runtimes`")

    def forks_need_another_model(self) -> bool:
        """Whether the counterfactual's provider is a local model other than the trials': one
        model server runs while an experiment does, so its forks cannot have another."""
        if self.counterfactual is None or self.counterfactual.provider.kind != "local":
            return False
        return self.provider.kind != "local" or self.counterfactual.provider.model != self.provider.model


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
    # Success: the task's postconditions hold on the real end state and no effect repeated.
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
    duplicate_effects: int = 0
    unsafe_actions_executed: int = 0
    verifier_rejections: int = 0
    # None in records made before it was counted.
    behaviour: TrialBehaviour | None = None
    recovery_time_s: float | None = None
    faults_configured: list[str] = Field(default_factory=list)
    faults_fired: list[str] = Field(default_factory=list)
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
