"""A person's approval in the baseline: what the loop asks, and what it says to its model after.

The baseline asks the same question as the durable runtime (agent.approval_need) and, when it
was given an approver, waits for the same decision (contracts.approval) before the call runs.
Given none, it runs the call as a naive loop would, and records it as an unapproved effect.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from contracts import ActionProposal, ApprovalDecision, PendingApproval, Verdict, proposal_digest

# Given the call that waits, returns a person's decision on it.
Approver = Callable[[PendingApproval], Awaitable[ApprovalDecision]]


def pending(step: int, task_id: str, proposal: ActionProposal, need: Verdict) -> PendingApproval:
    return PendingApproval(
        step=step,
        subtask_id=task_id,
        proposal=proposal,
        arguments_sha256=proposal_digest(proposal),
        reason_code=need.reason_code,
        message=need.message,
        requested_at=datetime.now(UTC),
    )


def decided(asked: PendingApproval, approver: str, approved: bool, reason: str = "") -> ApprovalDecision:
    return ApprovalDecision(
        step=asked.step,
        approved=approved,
        approver=approver,
        arguments_sha256=asked.arguments_sha256,
        reason=reason,
        decided_at=datetime.now(UTC),
    )


async def approve_everything(asked: PendingApproval) -> ApprovalDecision:
    """The experiment's person: approves what it is asked, as it does for a durable run
    (experiments.trials.durable_trial.approve_what_waits)."""
    return decided(asked, "experiment", approved=True)
