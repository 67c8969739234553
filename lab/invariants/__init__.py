"""Invariants over recorded runs: what must hold of every run, checked against what the run
left behind (its ledger and its Temporal history) after the fact.

story           the shape both sources are read into, every fact citing its event
ledger_story    a ledger's events -> RunStory
history_story   a history's events (every generation) -> RunStory; payloads reads their values
report          Violation, Rule, Evidence, InvariantReport
rules/          one module per invariant; RULES lists them in report order
check           `check_run`: every rule over one run's evidence
evidence        loading a ledger file and a history file; `gather`
fetch           a run's history, every generation, from the Temporal server
"""

from lab.invariants.check import check_run
from lab.invariants.evidence import gather, parse_history, read_history
from lab.invariants.fetch import fetch_generations
from lab.invariants.history_story import history_story
from lab.invariants.ledger_story import ledger_story
from lab.invariants.report import Evidence, InvariantReport, Rule, RuleOutcome, Violation
from lab.invariants.rules import RULES

__all__ = [
    "RULES",
    "Evidence",
    "InvariantReport",
    "Rule",
    "RuleOutcome",
    "Violation",
    "check_run",
    "fetch_generations",
    "gather",
    "history_story",
    "ledger_story",
    "parse_history",
    "read_history",
]
