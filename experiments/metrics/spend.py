"""Where each arm's tokens and model-seconds go, per success: the goal and plan calls, the
steps' proposals and what crashes made it spend again (TrialRecord.spend), over all scenarios
and over each fault-free one; and each arm's cost per success as a ratio to the reference
baseline's, the figure the durable runtime's cost target is stated in."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from experiments.config import FaultKind
from experiments.metrics.counting import counts_as_success
from experiments.metrics.results import ALL_SCENARIOS, ArmSpend, SpendShare
from experiments.trial_record import SpendPart, TrialRecord

# The arm the others' cost is set against: the journaled baseline (a rerun after a crash reads
# its calls back, as the durable runtime's history does), else the naive one.
REFERENCES = ("baseline-journal", "baseline")
# At most this many times the reference's tokens and model-seconds per success.
TARGET_RATIO = 1.2


class SpendRatio(BaseModel):
    """An arm's tokens and model-seconds per success over the reference arm's, in one scenario
    (None where the reference spent no model time)."""

    runtime: str
    reference: str
    scenario: str
    tokens: float
    model_s: float | None


def arm_spend(trials: Sequence[TrialRecord], runtimes: Sequence[str], scenarios: Sequence[str]) -> list[ArmSpend]:
    """Per runtime over all scenarios first, then over each fault-free scenario."""
    fault_free = [s for s in scenarios if any(t.scenario == s and t.fault_kind == FaultKind.NONE for t in trials)]
    rows = []
    for scenario in [ALL_SCENARIOS, *fault_free]:
        for runtime in runtimes:
            selected = [t for t in trials if t.runtime == runtime and scenario in (ALL_SCENARIOS, t.scenario)]
            if selected:
                rows.append(_spend(runtime, scenario, selected))
    return rows


def spend_ratios(rows: Sequence[ArmSpend]) -> list[SpendRatio]:
    """Every other arm against the reference, per scenario, where both have successes."""
    ratios = []
    for scenario in dict.fromkeys(row.scenario for row in rows):
        arms = {row.runtime: row for row in rows if row.scenario == scenario}
        reference = next((arms[name] for name in REFERENCES if name in arms), None)
        if reference is None or (base := reference.total) is None or base.tokens == 0:
            continue
        for row in arms.values():
            if row is reference or (spent := row.total) is None:
                continue
            seconds = spent.model_s / base.model_s if base.model_s > 0 else None
            ratios.append(
                SpendRatio(
                    runtime=row.runtime,
                    reference=reference.runtime,
                    scenario=scenario,
                    tokens=spent.tokens / base.tokens,
                    model_s=seconds,
                )
            )
    return ratios


def _spend(runtime: str, scenario: str, trials: list[TrialRecord]) -> ArmSpend:
    successes = sum(counts_as_success(t) for t in trials)
    spends = [t.spend for t in trials if t.spend is not None]
    unrecorded = len(trials) - len(spends)
    steps = sum((s.steps for s in spends), SpendPart())

    def share(part: SpendPart) -> SpendShare | None:
        if unrecorded or not successes:
            return None
        return SpendShare(
            calls=part.calls / successes, tokens=part.tokens / successes, model_s=part.model_s / successes
        )

    return ArmSpend(
        runtime=runtime,
        scenario=scenario,
        trials=len(trials),
        successes=successes,
        unrecorded=unrecorded,
        planning=share(sum((s.planning for s in spends), SpendPart())),
        steps=share(steps),
        redone=share(sum((s.redone for s in spends), SpendPart())),
        total=share(sum((s.total for s in spends), SpendPart())),
        step_prompt_tokens=steps.input_tokens / steps.calls if steps.calls and not unrecorded else None,
    )
