"""Every rule over one run's evidence."""

from __future__ import annotations

from collections.abc import Sequence

from lab.invariants.report import Evidence, InvariantReport, Rule, RuleOutcome
from lab.invariants.rules import RULES


def check_run(evidence: Evidence, rules: Sequence[Rule] = RULES) -> InvariantReport:
    outcomes: list[RuleOutcome] = []
    for rule in rules:
        missing = rule.missing(evidence)
        if missing is not None:
            outcomes.append(RuleOutcome(rule=rule.id, title=rule.title, status="skip", skipped_because=missing))
            continue
        found = rule.check(evidence)
        status = "fail" if found else "pass"
        outcomes.append(RuleOutcome(rule=rule.id, title=rule.title, status=status, violations=found))
    unread = [f"not read, so not checked: {what}" for story in evidence.stories() for what in story.unreadable]
    return InvariantReport(run_id=evidence.run_id, outcomes=outcomes, notes=[*evidence.notes, *unread])
