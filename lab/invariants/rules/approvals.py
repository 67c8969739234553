"""approval-before-effect: no tool ran against its verdict. A call the verifier rejected never
ran; a call it sent to a person ran only after that person approved that very call (the same
tool and arguments: an approval is bound to their sha256, `contracts/approval.py`)."""

from __future__ import annotations

from contracts.approval import proposal_digest
from lab.invariants.report import Evidence, Violation, violation
from lab.invariants.story import StepStory

RULE = "approval-before-effect"


def check(evidence: Evidence) -> list[Violation]:
    return [found for story in evidence.stories() for told in story.steps for found in _step(told)]


def _step(told: StepStory) -> list[Violation]:
    verdict, ran_at = told.verdict, told.result_at
    if verdict is None or ran_at is None:
        return []  # nothing ran, or no verdict to hold it to (commit-verified asks for one)
    ran = told.ran or told.proposal
    call = ran.describe() if ran else "a tool"
    said = f"step {told.step}: {call}"
    if verdict.decision == "reject":
        message = f"{said} ran though its verdict rejected it ({verdict.reason_code})"
        return [violation(RULE, message, ran_at, told.verdict_at)]
    if verdict.decision != "needs_approval":
        return []
    approval, approved_at = told.approval, told.approval_at
    if approval is None or approved_at is None:
        return [violation(RULE, f"{said} ran without the approval its verdict asked for", ran_at, told.verdict_at)]
    if not approval.approved:
        return [violation(RULE, f"{said} ran though {approval.approver} denied it", ran_at, approved_at)]
    if not approved_at.before(ran_at):
        return [violation(RULE, f"{said} ran before {approval.approver} approved it", ran_at, approved_at)]
    if ran is not None and approval.arguments_sha256 != (digest := proposal_digest(ran)):
        message = (
            f"{said} ran with arguments (sha256 {digest[:12]}...) other than those "
            f"{approval.approver} approved (sha256 {approval.arguments_sha256[:12]}...)"
        )
        return [violation(RULE, message, ran_at, approved_at)]
    return []
