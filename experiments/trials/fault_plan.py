"""The trial's fault in the experiment's fault book, and afterwards whether it fired."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from agent.faults import FaultPlan, FaultPoint, FaultSpec, fired_at
from agent.providers.noisy import read_injected
from experiments.config import FaultKind
from experiments.trial_record import CrashPoint
from experiments.trials.outcome import TrialOutcome
from experiments.trials.random_crash import draw_crash, fault_free_trial

# For annotations only: spec.py imports this module (its Lab holds a FaultBook).
if TYPE_CHECKING:
    from experiments.trials.spec import Lab, TrialSpec


class FaultBook:
    """The experiment's fault plan, shared by every process through AGENT_LAB_FAULT_PLAN. Each
    trial appends its faults, bound to its run id, and later asks whether they fired."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._faults: list[FaultSpec] = []
        FaultPlan(faults=[]).save(path)

    def add(self, fault: FaultSpec) -> int:
        self._faults.append(fault)
        FaultPlan(faults=self._faults).save(self.path)
        return len(self._faults) - 1

    def fired_at(self, index: int) -> float | None:
        return fired_at(self.path, index)


def plan_random_crash(spec: TrialSpec, lab: Lab, run_id: str) -> tuple[int | None, CrashPoint | None, str]:
    """A random crash's fault, drawn on the same arm's fault-free trial of the task and seed:
    its index in the fault book and its point; or why none could be drawn."""
    free = fault_free_trial(spec, lab)
    if free is None or free.infrastructure_error:
        return None, None, "no fault-free trial of this arm, task and seed to draw the crash on"
    crash = draw_crash(spec.task.spec.id, spec.seed, free.trajectory, spec.scenario.draw)
    if crash is None:
        return None, None, "its fault-free trial reached no step to crash at"
    fault = FaultSpec(point=FaultPoint(crash.point), action="kill", run_id=run_id, step=crash.step, delay_s=0)
    return lab.faults.add(fault), crash, ""


def plan_fault(spec: TrialSpec, lab: Lab, run_id: str) -> int | None:
    scenario = spec.scenario
    if scenario.kind not in (FaultKind.KILL, FaultKind.TOOL_ERROR, FaultKind.TOOL_TIMEOUT):
        return None
    action = {FaultKind.KILL: "kill", FaultKind.TOOL_ERROR: "transient_error", FaultKind.TOOL_TIMEOUT: "timeout"}
    fault = FaultSpec(
        point=FaultPoint(scenario.point),
        action=action[scenario.kind],  # type: ignore[arg-type]
        run_id=run_id,
        step=scenario.step,
        tool=scenario.tool,
        delay_s=0,
    )
    return lab.faults.add(fault)


def faults_fired(
    spec: TrialSpec, lab: Lab, outcome: TrialOutcome, fault_index: int | None
) -> tuple[list[str], float | None]:
    """The configured faults that fired, and the baseline's recovery time from a kill (the
    durable one is read from history: `durable_trial.durable_recovery`)."""
    kind = spec.scenario.kind
    if kind == FaultKind.NONE:
        return [], None
    if kind == FaultKind.MODEL_NOISE:
        logged = lab.cluster.dependencies.injected
        injected = [fault for run_id in outcome.run_ids for fault in read_injected(logged, run_id)]
        return ([kind.value] if injected else []), None
    if kind == FaultKind.SERVER_RESTART:
        return ([kind.value] if outcome.server_restarted_at else []), None
    if kind == FaultKind.RANDOM_TIME_CRASH:
        killed_at = outcome.killed_at
    else:
        killed_at = lab.faults.fired_at(fault_index) if fault_index is not None else None
    if killed_at is None:
        return [], None
    recovery = outcome.resumed_at - killed_at if outcome.resumed_at else None
    return [kind.value], recovery
