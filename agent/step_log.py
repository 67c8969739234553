"""The record of a run's steps: what the starter and the report show, and what the model
is shown back (the current subtask's turns). Deterministic data, owned by workflow code."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from contracts import ActionProposal, StepRecord, Turn, Usage, Verdict

Outcome = Literal["committed", "rejected"]


@dataclass
class StepLog:
    steps: list[StepRecord] = field(default_factory=list)
    # Turns of the subtask in progress; a new subtask starts with a clean slate.
    turns: list[Turn] = field(default_factory=list)

    def record(
        self,
        step: int,
        subtask_id: str,
        outcome: Outcome,
        proposal: ActionProposal | None,
        *,
        usage: Usage,
        said: str,
        verdict: Verdict | None = None,
        result: str = "",
        postconditions: str = "",
        fault_injected: bool = False,
    ) -> StepRecord:
        """`said` is the feedback the model gets; for a rejection it is also the reason."""
        record = StepRecord(
            step=step,
            subtask_id=subtask_id,
            outcome=outcome,
            proposal=proposal,
            verdict=verdict,
            result=result,
            postconditions=postconditions,
            reason=said if outcome == "rejected" else "",
            usage=usage,
        )
        self.steps.append(record)
        self.turns.append(
            Turn(step=step, proposal=proposal, outcome=outcome, feedback=said, fault_injected=fault_injected)
        )
        return record
