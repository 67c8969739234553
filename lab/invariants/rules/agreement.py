"""ledger-matches-history: the ledger (the audit trail a person reads) and the Temporal history
(the source of truth for the workflow's state) tell the same story.

Where they meet: every append the history recorded left the ledger's last line at the seq and
hash the append returned; every step the history closed is closed in the ledger the same way
(commit or rollback), with the same proposal, verdict, approval, result and check; the ledger
holds no step the history did not close; and the run ended the same way in both.
"""

from __future__ import annotations

from contracts.approval import proposal_digest
from lab.invariants.report import Evidence, Violation, violation
from lab.invariants.story import RunStory, StepStory

RULE = "ledger-matches-history"
# Endings of a workflow that did not return a RunResult: it wrote no run_finished.
_NO_RESULT = {"WORKFLOW_FAILED", "TERMINATED", "CANCELED", "TIMED_OUT"}


def check(evidence: Evidence) -> list[Violation]:
    ledger, history = evidence.ledger, evidence.history
    if ledger is None or history is None:
        return []
    found: list[Violation] = []
    if ledger.run_id and history.run_id and ledger.run_id != history.run_id:
        found.append(violation(RULE, f"the ledger is of run {ledger.run_id!r}, the history of run {history.run_id!r}"))
    return found + _appends(ledger, history) + _steps(ledger, history) + _ending(ledger, history)


def _appends(ledger: RunStory, history: RunStory) -> list[Violation]:
    found: list[Violation] = []
    last = max(ledger.line_hashes, default=0)
    for mark in history.ledger_marks:
        held = ledger.line_hashes.get(mark.seq)
        if held is None:
            message = f"an append left the ledger at seq {mark.seq}, but the ledger ends at seq {last}"
            found.append(violation(RULE, message, mark.at))
        elif held != mark.hash:
            message = (
                f"ledger seq {mark.seq} is not the line the workflow appended "
                f"(hash {held[:12]}..., the append returned {mark.hash[:12]}...)"
            )
            found.append(violation(RULE, message, mark.at, ledger.cite(mark.seq)))
    return found


def _steps(ledger: RunStory, history: RunStory) -> list[Violation]:
    told = {each.step: each for each in history.steps if each.outcome is not None}
    written = {each.step: each for each in ledger.steps if each.outcome is not None}
    # The steps this history can speak for: from its first generation's first step, and, when it
    # does not hold the run's end (it runs, or continued as new), up to the last step it closed:
    # the steps after it close in a later generation.
    first = history.carried.steps + 1
    last = None if history.ended else max(told, default=0)
    found: list[Violation] = []
    for step in sorted(told.keys() | written.keys()):
        if step < first or (last is not None and step > last):
            continue
        in_history, in_ledger = told.get(step), written.get(step)
        if in_ledger is None and in_history is not None:
            message = f"step {step}: the history records its {in_history.outcome}, the ledger has no record of it"
            found.append(violation(RULE, message, in_history.outcome_at))
        elif in_history is None and in_ledger is not None:
            message = f"step {step}: the ledger records its {in_ledger.outcome}, the history never closed it"
            found.append(violation(RULE, message, in_ledger.outcome_at))
        elif in_history is not None and in_ledger is not None:
            found += _same_step(in_ledger, in_history)
    return found


def _same_step(ledger: StepStory, history: StepStory) -> list[Violation]:
    """Each fact both sources hold must be the same; a fact one of them lacks is not compared
    (a history gives no check for a step that only read), except an approval, which both record."""
    facts = [
        ("outcome", ledger.outcome, history.outcome, ledger.outcome_at, history.outcome_at),
        ("proposal", _call(ledger), _call(history), ledger.proposal_at, history.proposal_at),
        ("verdict", _decision(ledger), _decision(history), ledger.verdict_at, history.verdict_at),
        ("result", _result(ledger), _result(history), ledger.result_at, history.result_at),
        ("check", ledger.check_passed, history.check_passed, ledger.check_at, history.check_at),
    ]
    found = [
        violation(RULE, f"step {ledger.step}: the ledger's {fact} is {mine}, the history's {theirs}", at, their_at)
        for fact, mine, theirs, at, their_at in facts
        if mine is not None and theirs is not None and mine != theirs
    ]
    approvals = (_approval(ledger), _approval(history))
    if approvals[0] != approvals[1] and not (ledger.unread or history.unread):
        message = f"step {ledger.step}: the ledger's approval is {approvals[0]}, the history's {approvals[1]}"
        found.append(violation(RULE, message, ledger.approval_at, history.approval_at))
    return found


def _call(told: StepStory) -> str | None:
    """The proposal as what it asks for: its kind, and for a tool call the digest an approval
    binds (the tool and its canonical arguments: key order is the writer's, not the call's)."""
    proposal = told.proposal
    if proposal is None:
        return None
    if proposal.kind != "tool_call":
        return proposal.kind
    return f"{proposal.tool} with arguments sha256 {proposal_digest(proposal)[:12]}..."


def _decision(told: StepStory) -> str | None:
    return None if told.verdict is None else told.verdict.decision


def _result(told: StepStory) -> str | None:
    result = told.result
    if result is None:
        return None
    return f"{'ok' if result.ok else 'failed'} under key {(result.idempotency_key or 'none')[:12]}"


def _approval(told: StepStory) -> str:
    decision = told.approval
    if decision is None:
        return "none"
    return f"{'approved' if decision.approved else 'denied'} by {decision.approver}"


def _ending(ledger: RunStory, history: RunStory) -> list[Violation]:
    ended = history.outcome
    if not history.ended or ended is None or ended in _NO_RESULT:
        return []
    if ledger.outcome is None:
        message = f"the history ends the run {ended}, the ledger has no run_finished"
        return [violation(RULE, message, history.outcome_at)]
    if ledger.outcome != ended:
        message = f"the ledger ends the run {ledger.outcome}, the history {ended}"
        return [violation(RULE, message, ledger.outcome_at, history.outcome_at)]
    return []
