"""What a check finds: for each rule, pass, fail (with its violations) or skip (with why), and
for the run, whether it is clean."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

from agent.ledger import LedgerReport
from lab.invariants.story import Cite, RunStory


class Violation(BaseModel):
    rule: str
    message: str
    # The events that show it, as a person looks them up: "ledger seq 12", "history event 38".
    cites: list[str] = Field(default_factory=list)

    def __str__(self) -> str:
        return f"{self.message} ({'; '.join(self.cites)})" if self.cites else self.message


def violation(rule: str, message: str, *cites: Cite | None) -> Violation:
    return Violation(rule=rule, message=message, cites=[str(cite) for cite in cites if cite is not None])


@dataclass(frozen=True)
class Evidence:
    """What is known of one run. A source that is missing is None, and the rules that need it
    are skipped (with the reason in `notes` when there is one)."""

    run_id: str
    ledger: RunStory | None = None
    chain: LedgerReport | None = None  # the ledger file's hash chain, as `ledger verify` checks it
    history: RunStory | None = None
    notes: tuple[str, ...] = ()

    def stories(self) -> list[RunStory]:
        return [story for story in (self.ledger, self.history) if story is not None]


Needs = Literal["a source", "the ledger file", "the history", "both"]

_NEEDED = {
    "a source": "needs the run's ledger or its Temporal history",
    "the ledger file": "needs the run's ledger file",
    "the history": "needs the run's Temporal history",
    "both": "needs both the run's ledger and its Temporal history",
}


@dataclass(frozen=True)
class Rule:
    id: str
    # What holds when the rule passes, in one line.
    title: str
    needs: Needs
    check: Callable[[Evidence], list[Violation]]
    # Why it needs what it needs, when that is not obvious.
    because: str = ""

    def missing(self, evidence: Evidence) -> str | None:
        """Why the evidence cannot answer this rule, or None when it can."""
        has_ledger, has_history = evidence.ledger is not None, evidence.history is not None
        can = {
            "a source": has_ledger or has_history,
            "the ledger file": evidence.chain is not None,
            "the history": has_history,
            "both": has_ledger and has_history,
        }[self.needs]
        if can:
            return None
        return _NEEDED[self.needs] + (f" ({self.because})" if self.because else "")


Status = Literal["pass", "fail", "skip"]


class RuleOutcome(BaseModel):
    rule: str
    title: str
    status: Status
    violations: list[Violation] = Field(default_factory=list)
    skipped_because: str = ""


class InvariantReport(BaseModel):
    run_id: str
    outcomes: list[RuleOutcome]
    notes: list[str] = Field(default_factory=list)

    @property
    def violations(self) -> list[Violation]:
        return [found for outcome in self.outcomes for found in outcome.violations]

    @property
    def clean(self) -> bool:
        return not self.violations

    def failed(self) -> list[str]:
        return [outcome.rule for outcome in self.outcomes if outcome.status == "fail"]
