"""A run's story as one source tells it: the ledger, or the Temporal history.

Both sources are read into the same shape, so that a rule is written once and checked against
each, and so that "the ledger and the history tell the same story" is a comparison of two
values of one type. Every fact carries a `Cite`: where in its source it was read, which is
what a violation message points a person at.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts import ActionProposal, RunBudget, Subtask, ToolResult, Usage, Verdict
from contracts.approval import ApprovalDecision

Source = Literal["ledger", "history"]
StepOutcome = Literal["commit", "rollback"]


class Cite(BaseModel):
    """One event of a source: a ledger line by its seq, a history event by its id (and, after a
    continue-as-new, its generation: event ids start again at 1 in each). Seqs and event ids
    only grow, so `a.before(b)` says a was recorded before b."""

    model_config = ConfigDict(frozen=True)

    source: Source
    position: int
    generation: int = 1

    def before(self, other: Cite) -> bool:
        return (self.generation, self.position) < (other.generation, other.position)

    def __str__(self) -> str:
        if self.source == "ledger":
            return f"ledger seq {self.position}"
        later = f" of generation {self.generation}" if self.generation > 1 else ""
        return f"history event {self.position}{later}"


class StepStory(BaseModel):
    """One step as a source tells it. A field is None when the source does not say (a step that
    ran no tool has no result; a history gives no check for a step that read only)."""

    step: int
    subtask_id: str | None = None
    proposal: ActionProposal | None = None
    proposal_at: Cite | None = None
    # What the step spent on its proposal, failed attempts included (what the budget counts).
    usage: Usage = Field(default_factory=Usage)
    verdict: Verdict | None = None
    verdict_at: Cite | None = None
    approval: ApprovalDecision | None = None
    approval_at: Cite | None = None
    # The call that ran: its proposal as executed, and where it began (for the history, the
    # activity's scheduling: nothing can act before it) and what it returned.
    ran: ActionProposal | None = None
    result: ToolResult | None = None
    result_at: Cite | None = None
    check_passed: bool | None = None
    check_at: Cite | None = None
    outcome: StepOutcome | None = None
    outcome_at: Cite | None = None
    # Some fact of this step could not be read (RunStory.unreadable says which): a fact missing
    # here may exist, so the rules hold against the step only what they see.
    unread: bool = False


class LedgerMark(BaseModel):
    """What an append told the workflow: after it, the ledger's last line was `seq` with `hash`."""

    seq: int
    hash: str
    at: Cite


class Carried(BaseModel):
    """What a run had spent before the first step this story holds: its goal and plan, and,
    for a history that starts at a later generation (continue-as-new), the generations before."""

    usage: Usage = Field(default_factory=Usage)
    steps: int = 0
    subtask_id: str | None = None
    subtask_steps: int = 0
    subtask_usage: Usage = Field(default_factory=Usage)


class RunStory(BaseModel):
    source: Source
    run_id: str | None = None
    # The limits the run was given; only the history holds them (the workflow's input).
    budget: RunBudget | None = None
    subtasks: list[Subtask] = Field(default_factory=list)
    carried: Carried = Field(default_factory=Carried)
    steps: list[StepStory] = Field(default_factory=list)
    # How the run ended: a RunState value, or for a workflow that did not end with a RunResult,
    # how Temporal ended it (WORKFLOW_FAILED, TERMINATED, ...). None while it runs, or when
    # the history continued as new into a generation it does not hold.
    outcome: str | None = None
    outcome_at: Cite | None = None
    # False for a history that continued as new into a generation it does not hold.
    ended: bool = False
    # The history's record of the ledger (what each append returned) and the ledger's own
    # lines (seq -> hash): the two meet there.
    ledger_marks: list[LedgerMark] = Field(default_factory=list)
    line_hashes: dict[int, str] = Field(default_factory=dict)
    # What could not be read (a payload by reference missing from the artifact store): the facts
    # it held are not checked, and the report says so.
    unreadable: list[str] = Field(default_factory=list)

    def step(self, number: int) -> StepStory:
        """The story of step `number`, added (in step order) when the source first mentions it."""
        for told in self.steps:
            if told.step == number:
                return told
        told = StepStory(step=number)
        self.steps.append(told)
        self.steps.sort(key=lambda each: each.step)
        return told

    def cite(self, position: int, generation: int = 1) -> Cite:
        return Cite(source=self.source, position=position, generation=generation)
