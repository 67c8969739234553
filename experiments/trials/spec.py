"""What a trial is (`TrialSpec`), what every trial shares (`Lab`), and the `RunRequest` a trial
runs."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path

from contracts import ProviderConfig, RunRequest
from experiments.config import ExperimentConfig, ExperimentRuntime, FaultKind, FaultScenario
from experiments.harness import LabCluster
from experiments.trial_record import TrialRecord
from experiments.trials.fault_plan import FaultBook
from lab.runs.catalog import Task
from lab.runs.run_request import build_request
from settings import in_project


@dataclass(frozen=True)
class TrialSpec:
    experiment_id: str
    task: Task
    runtime: ExperimentRuntime
    scenario: FaultScenario
    index: int
    seed: int
    # The experiment's part that runs it (experiments.resume): 0 for the first; a trial run
    # again after an earlier part was cut short is run under identities of its own.
    resumption: int = 0

    @property
    def trial_id(self) -> str:
        runtime = self.runtime.replace("+", "-")
        return f"{self.experiment_id}-{self.task.spec.id}-{runtime}-{self.scenario.name}-{self.index}"

    @property
    def identity(self) -> str:
        """What its runs and its world are named after: the trial's id, with the part that runs
        it when that is a resumed one (the cut-short attempt's runs and world stay its own)."""
        return self.trial_id if not self.resumption else f"{self.trial_id}-r{self.resumption}"


@dataclass
class Lab:
    """What every trial shares: the cluster, the fault book, the provider, the scratch space."""

    cluster: LabCluster
    faults: FaultBook
    provider: ProviderConfig
    config: ExperimentConfig
    scratch: Path
    # The provider a trial's fork runs with, when the config asks for counterfactuals.
    counterfactual_provider: ProviderConfig | None = None
    # The fault-free trials recorded so far, by (task, runtime, trial index): a random crash is
    # drawn on its arm's (experiments.trials.random_crash).
    fault_free: dict[tuple[str, str, int], TrialRecord] = field(default_factory=dict)


def request_for(spec: TrialSpec, lab: Lab) -> RunRequest:
    provider = lab.provider.model_copy(update={"seed": spec.seed})
    if provider.kind == "scripted":
        provider = provider.model_copy(update={"script_path": in_project(spec.task.require_script())})
    if spec.scenario.kind == FaultKind.MODEL_NOISE and spec.scenario.noise is not None:
        noise = spec.scenario.noise.model_copy(update={"seed": noise_seed(spec)})
        provider = provider.model_copy(update={"noise": noise})
    runtime = "durable" if spec.runtime == "durable" else "baseline"
    request = build_request(spec.task, runtime, trial_id=spec.identity, provider=provider)
    # The durable and the journaled runs keep one run id across a crash; the naive one's changes.
    run_id = f"{spec.identity}-a1" if spec.runtime in ("baseline", "baseline+verifier") else spec.identity
    updates: dict[str, object] = {
        "run_id": run_id,
        "baseline_verifies": spec.runtime == "baseline+verifier",
        "parallel_subtasks": lab.config.parallel_subtasks and runtime == "durable",
        # The same for every arm: what the model is told, and how often a call is tried.
        "show_acceptance": lab.config.show_acceptance,
        "retries": lab.config.retries,
    }
    if lab.config.budget is not None:
        updates["budget"] = lab.config.budget
    return request.model_copy(update=updates)


def noise_seed(spec: TrialSpec) -> int:
    """The seed of a trial's model noise: its task and seed, not its arm, so that every arm of
    the trial meets the same faults at the same step (agent.providers.noisy draws by step and
    attempt); and not the experiment's id, so a trial run again after a resume meets them too."""
    digest = hashlib.sha256(f"{spec.task.spec.id}:{spec.seed}".encode()).digest()
    return int.from_bytes(digest[:4], "big")
