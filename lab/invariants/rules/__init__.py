"""The invariants, in the order they are reported: the ledger's own integrity first (the other
rules read it), then what the lab promises of every run, then the two sources compared."""

from __future__ import annotations

from lab.invariants.report import Rule
from lab.invariants.rules import agreement, approvals, budgets, chain, commits, effects

RULES: tuple[Rule, ...] = (
    Rule(chain.RULE, "the ledger file is one unbroken hash chain", "the ledger file", chain.check),
    Rule(
        approvals.RULE,
        "no tool ran against its verdict: a rejected call never, one needing approval only after it",
        "a source",
        approvals.check,
    ),
    Rule(effects.RULE, "each idempotency key produced at most one effect", "a source", effects.check),
    Rule(
        budgets.RULE,
        "no step began once a step, token or cost budget was spent",
        "the history",
        budgets.check,
        because="a run's budget is recorded only in the workflow's input",
    ),
    Rule(
        commits.RULE,
        "every commit had an allowing verdict, a successful call, and a passing check where it ended a subtask",
        "a source",
        commits.check,
    ),
    Rule(agreement.RULE, "the ledger and the Temporal history tell the same story", "both", agreement.check),
)

__all__ = ["RULES"]
