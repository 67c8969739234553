"""An experiment's configuration: what to run, how often, under which faults, with which
provider; and counterfactuals of an experiment recorded earlier. Both runtimes get the same
tasks, provider, seeds and faults. `config_loader` reads them from YAML; each trial's raw record
is in `trial_record`."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from contracts import ProviderConfig
from contracts.budget import RunBudget
from contracts.provider import NoiseConfig
from contracts.retries import RetryBudget
from settings import PROJECT_ROOT

# The arms, each one mechanism apart on the same agent core, tools, provider and grader:
# `durable` (a Temporal workflow); `baseline`, the plain loop, rerun from the start under a new
# run id after a crash; `baseline-journal`, the same loop under one run id with a journal of its
# calls, read back on a rerun (baseline.journal); `baseline+verifier`, the plain loop with the
# durable runtime's verifier before every call.
ExperimentRuntime = Literal["durable", "baseline", "baseline-journal", "baseline+verifier"]
RUNTIMES: tuple[ExperimentRuntime, ...] = ("durable", "baseline", "baseline-journal", "baseline+verifier")


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
    # SIGKILL at a (step, point) drawn uniformly from those the arm's fault-free trial of the
    # same task and seed reached (experiments.trials.random_crash): it fires by construction.
    RANDOM_CRASH = "random_crash"
    # SIGKILL at a moment drawn uniformly over the arm's fault-free trial's run time, wherever the
    # run then is (experiments.trials.random_time_crash); a run that ends first is not crashed.
    RANDOM_TIME_CRASH = "random_time_crash"


# The faults that SIGKILL the process that runs the agent.
CRASH_KINDS = frozenset({FaultKind.KILL, FaultKind.RANDOM_CRASH, FaultKind.RANDOM_TIME_CRASH})

# The fault-free trials an arm's random crash can be drawn on, in the order they are looked for.
FAULT_FREE_ARMS: dict[str, tuple[str, ...]] = {
    "durable": ("durable",),
    "baseline": ("baseline",),
    "baseline-journal": ("baseline-journal", "baseline"),
    "baseline+verifier": ("baseline+verifier",),
}

# Where a fault can fire, for each runtime.
FAULT_POINTS: dict[str, frozenset[str]] = {
    "durable": frozenset({"model_call", "tool_execution", "before_effect", "after_effect", "server"}),
    "baseline": frozenset({"model_call", "tool_execution", "before_effect", "after_effect"}),
    "baseline-journal": frozenset({"model_call", "tool_execution", "before_effect", "after_effect"}),
    "baseline+verifier": frozenset({"model_call", "tool_execution", "before_effect", "after_effect"}),
}


class FaultScenario(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    kind: FaultKind = FaultKind.NONE
    # In a tool, `before_effect` and `after_effect` are controlled (nothing done yet; done and not
    # recorded); `tool_execution` fires as the tool runs, whether or not it acted first.
    point: Literal["model_call", "tool_execution", "before_effect", "after_effect"] | None = None
    # Narrow where a kill or tool fault fires: a step number, a tool name.
    step: int | None = Field(default=None, ge=1)
    tool: str | None = None
    after_step: int = Field(default=1, ge=1)
    noise: NoiseConfig | None = None
    # Of a random crash, which of the trial's draws it is: scenarios that differ only in `draw`
    # crash the same trajectory again, each at a point drawn uniformly, none at a (step, point)
    # an earlier draw took while the trajectory has others left (a random-time crash: another
    # moment). Draw 1 is the one every config had before there were several; left out of the
    # config's dump, and so of its digest, so that experiments recorded before it resume.
    draw: int = Field(default=1, ge=1, exclude_if=lambda value: value == 1)
    # Only these tasks / runtimes (default: all of the experiment's).
    tasks: list[str] | None = None
    runtimes: list[ExperimentRuntime] | None = None

    @model_validator(mode="after")
    def _complete(self) -> FaultScenario:
        needs_point = self.kind in (FaultKind.KILL, FaultKind.TOOL_ERROR, FaultKind.TOOL_TIMEOUT)
        if needs_point and self.point is None:
            raise ValueError(
                f"a {self.kind} fault needs a point: model_call, tool_execution, before_effect or after_effect"
            )
        if self.kind in (FaultKind.TOOL_ERROR, FaultKind.TOOL_TIMEOUT) and self.point == "model_call":
            raise ValueError(f"a {self.kind} fault fires in a tool, not at model_call")
        if self.kind == FaultKind.MODEL_NOISE and self.noise is None:
            raise ValueError("a model_noise fault needs `noise` rates")
        if self.draw > 1 and self.kind not in (FaultKind.RANDOM_CRASH, FaultKind.RANDOM_TIME_CRASH):
            raise ValueError(f"`draw` numbers a random crash's draws: a {self.kind} fault has none")
        return self

    @property
    def where(self) -> str | None:
        """The fault point, as FAULT_POINTS names it."""
        if self.kind == FaultKind.SERVER_RESTART:
            return "server"
        if self.kind in (FaultKind.RANDOM_CRASH, FaultKind.RANDOM_TIME_CRASH):
            return "model_call"  # every step has one; the tool points are drawn where reached
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


def with_experiment_settings(provider: ProviderConfig, spec: ProviderSpec) -> ProviderConfig:
    """An experiment's provider with its sampling temperature and its cassette (a path relative
    to the project), when the config names them."""
    if spec.temperature is not None:
        provider = provider.model_copy(update={"temperature": spec.temperature})
    if spec.cassette is None:
        return provider
    path = Path(spec.cassette)
    path = path if path.is_absolute() else PROJECT_ROOT / path
    return provider.model_copy(update={"cassette": str(path), "cassette_mode": spec.cassette_mode})


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
    # Whether a baseline trial asks a person before a call that needs approval: `ask`, and the
    # experiment's person approves it as it does a durable trial's, so both runtimes can ask;
    # `none`, and it runs unasked, as a naive loop's does: an unapproved effect, a failed trial.
    baseline_approval: Literal["ask", "none"] = "ask"
    # Equal information and equal retries for every arm (RunRequest.show_acceptance, .retries):
    # a headline comparison sets `show_acceptance: false` and one `retries`. None: each
    # runtime's own (the durable model is shown the checks, the baseline's is not; the durable
    # runtime's retry policies, the baseline's 3 attempts). Left out of the config's dump, and
    # so of its digest, when None: experiments recorded before them resume unchanged.
    show_acceptance: bool | None = Field(default=None, exclude_if=lambda value: value is None)
    retries: RetryBudget | None = Field(default=None, exclude_if=lambda value: value is None)
    # A study's agent, frozen (experiments.freeze): the commit whose agent code (its prompts,
    # tools, sampler, budgets, loops and tasks) every trial must run. The experiment starts, and
    # resumes, only on a checkout whose agent code is that commit's.
    frozen_at: str | None = Field(default=None, pattern=r"^[0-9a-f]{7,40}$", exclude_if=lambda value: value is None)
    counterfactual: CounterfactualSpec | None = None

    @field_validator("frozen_at", mode="before")
    @classmethod
    def _commit_as_written(cls, value: object) -> object:
        """A short commit of digits alone (`4041463`) is a number to YAML, and one like
        `1e45678` a float: say to quote it, not that a string was expected."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            raise ValueError(f'YAML read the commit as the number {value!r}: quote it (frozen_at: "...")')
        return value

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
                    f"scenarios[{index}]: no runtime among {', '.join(runtimes)} has the fault point {where!r}"
                )
            if scenario.kind in (FaultKind.RANDOM_CRASH, FaultKind.RANDOM_TIME_CRASH):
                self._fault_free_for(index, scenario)
        if self.counterfactual is not None:
            self._counterfactual_coherent(self.counterfactual)
        return self

    def _fault_free_for(self, index: int, crash: FaultScenario) -> None:
        """A random crash is drawn on the same arm's fault-free trial of the same task and seed
        (the journaled baseline's may be the naive one's: without a crash they are one loop): a
        scenario of kind `none` must run every task and runtime the crash scenario does."""
        tasks = set(crash.tasks or self.tasks)
        for runtime in crash.runtimes or self.runtimes:
            if not any(
                free.kind == FaultKind.NONE
                and tasks <= set(free.tasks or self.tasks)
                and any(arm in (free.runtimes or self.runtimes) for arm in FAULT_FREE_ARMS[runtime])
                for free in self.scenarios
            ):
                raise ValueError(
                    f"scenarios[{index}]: a {crash.kind} is drawn on the fault-free trial of the same task, seed "
                    f"and runtime: add a scenario of kind none that runs its tasks on {runtime}"
                )

    def _counterfactual_coherent(self, counterfactual: CounterfactualSpec) -> None:
        if "durable" not in self.runtimes:
            raise ValueError("counterfactual: only durable trials can be forked; add durable to `runtimes`")

    def forks_need_another_model(self) -> bool:
        """Whether the counterfactual's provider is a local model other than the trials': one
        model server runs while an experiment does, so its forks cannot have another."""
        if self.counterfactual is None or self.counterfactual.provider.kind != "local":
            return False
        return self.provider.kind != "local" or self.counterfactual.provider.model != self.provider.model
