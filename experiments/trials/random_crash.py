"""Crashes at random points, for every arm (a `random_crash` scenario).

A named fault window ("kill after an effect") is chosen by the experimenter, and a window built to
break one runtime says little of what crashes do in general. Here the process that runs the
agent (a durable worker, the baseline's own process) is SIGKILLed at a point drawn uniformly
from the (step, point) pairs that the same arm's fault-free trajectory of the same task and seed
reached: every step's model call, and for a step whose tool changes something, just before it
acts (its intent recorded) and just after it acted (before its effect is recorded). The crashed
run follows its fault-free trajectory up to that point (the scripted oracle always; a real model
replayed from its cassette), so the crash fires by construction, and no trial is left out for a
fault that never came.

The draw is a number in [0, 1) seeded by the trial's task and seed, never by its arm or run: the
arms of one trial draw the same number, each mapping it onto its own trajectory's pairs. A
scenario's `draw: N` crashes the trajectory again: the N-th number of the same stream, mapped onto
the pairs the draws before it left (all of them again once every pair was taken), so two draws of
a trajectory crash it at two different points, each uniform over its pairs.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
from typing import TYPE_CHECKING, Literal

from agent.tools.registry import TOOLS
from contracts import StepRecord
from experiments.config import FAULT_FREE_ARMS, FaultKind
from experiments.trial_record import CrashPoint, StepKind, TrialRecord

# For annotations only: spec.py imports this module's neighbours.
if TYPE_CHECKING:
    from experiments.trials.spec import Lab, TrialSpec

CrashWhere = Literal["model_call", "before_effect", "after_effect"]


def trajectory_of(steps: list[StepRecord]) -> list[StepKind]:
    """What each step reached, as the fault points see it (agent.execution: a tool that changes
    something passes `before_effect` and `after_effect` when it runs)."""
    kinds: list[StepKind] = []
    for record in steps:
        proposal = record.proposal
        tool = TOOLS.get(proposal.tool or "") if proposal is not None and proposal.kind == "tool_call" else None
        refused = record.verdict is not None and record.verdict.decision != "allow" and record.outcome == "rejected"
        ran = tool is not None and tool.recorded and bool(record.result) and not refused
        kinds.append(("effect" if tool.external_effects else "change") if ran and tool is not None else "model")
    return kinds


def reachable(trajectory: list[StepKind]) -> list[tuple[int, CrashWhere]]:
    pairs: list[tuple[int, CrashWhere]] = []
    for step, kind in enumerate(trajectory, start=1):
        pairs.append((step, "model_call"))
        if kind != "model":
            pairs += [(step, "before_effect"), (step, "after_effect")]
    return pairs


def crash_draws(task_id: str, seed: int, count: int = 1) -> list[float]:
    """The trial's first `count` draws: its task and seed, not its arm."""
    digest = hashlib.sha256(f"random-crash:{task_id}:{seed}".encode()).hexdigest()
    stream = random.Random(digest)
    return [stream.random() for _ in range(count)]


def crash_draw(task_id: str, seed: int) -> float:
    """The trial's first draw."""
    return crash_draws(task_id, seed)[0]


def draw_crash(task_id: str, seed: int, trajectory: list[StepKind], draw: int = 1) -> CrashPoint | None:
    """The crash point of the trial's `draw`-th draw on an arm's fault-free trajectory; None when
    it reached no point."""
    pairs = reachable(trajectory)
    if not pairs:
        return None
    left: list[tuple[int, CrashWhere]] = []
    numbers = crash_draws(task_id, seed, draw)
    for number in numbers[:-1]:  # the points the earlier draws took
        left = left or list(pairs)  # every pair taken: each is open again
        left.pop(int(number * len(left)))
    left, number = left or list(pairs), numbers[-1]
    step, point = left[int(number * len(left))]
    landed = None if trajectory[step - 1] != "effect" or point == "model_call" else point == "after_effect"
    return CrashPoint(step=step, point=point, draw=number, pairs=len(pairs), effect_landed=landed)


def fault_free_trial(spec: TrialSpec, lab: Lab) -> TrialRecord | None:
    """The fault-free trial a crash of this trial is drawn on: its own arm's of the same task and
    seed, else the first of FAULT_FREE_ARMS recorded; None when there is none."""
    found = (lab.fault_free.get((spec.task.spec.id, arm, spec.index)) for arm in FAULT_FREE_ARMS[spec.runtime])
    return next((record for record in found if record is not None), None)


class FaultFreeTrials:
    """The fault-free trials a random crash is drawn on (experiments.trials.random_crash), kept
    in `lab.fault_free` as they are recorded (those of a part before a resume included), and
    a crash trial held until its own has ended."""

    def __init__(self, lab: Lab, finished: list[TrialRecord]) -> None:
        self._lab = lab
        self._ended: dict[tuple[str, str, int], asyncio.Event] = {}
        for record in finished:
            self.recorded(record)

    def recorded(self, record: TrialRecord) -> None:
        if record.fault_kind == FaultKind.NONE:
            key = (record.task_id, record.runtime, record.trial_index)
            self._lab.fault_free.setdefault(key, record)
            self._event(key).set()

    def done(self, spec: TrialSpec) -> None:
        if spec.scenario.kind == FaultKind.NONE:
            self._event((spec.task.spec.id, spec.runtime, spec.index)).set()

    async def ready(self, spec: TrialSpec) -> None:
        """Held until the fault-free trial its crash is drawn on has ended: its own arm's, or
        the first arm of FAULT_FREE_ARMS the experiment runs fault-free on the task."""
        if spec.scenario.kind not in (FaultKind.RANDOM_CRASH, FaultKind.RANDOM_TIME_CRASH):
            return
        config, task = self._lab.config, spec.task.spec.id
        for arm in FAULT_FREE_ARMS[spec.runtime]:
            runs = (s for s in config.scenarios if s.kind == FaultKind.NONE and task in (s.tasks or config.tasks))
            if any(config.runs(free, arm) for free in runs):  # type: ignore[arg-type]
                await self._event((task, arm, spec.index)).wait()
                return

    def _event(self, key: tuple[str, str, int]) -> asyncio.Event:
        return self._ended.setdefault(key, asyncio.Event())
