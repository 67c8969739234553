"""Human approval of one exact proposal: requested by the workflow, decided by a person
through a Temporal Update, bound to the sha256 of the proposal's tool and arguments."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field

from contracts.actions import ActionProposal, ReasonCode
from contracts.wire_names import WIRE_NAMES, renamed


def proposal_digest(proposal: ActionProposal) -> str:
    """sha256 of the tool and its arguments as canonical JSON: what an approval is bound to.
    Deterministic, so workflow code may compute it."""
    material = json.dumps(
        {"tool": proposal.tool, "arguments": proposal.arguments}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(material.encode("utf-8")).hexdigest()


class PendingApproval(BaseModel):
    model_config = WIRE_NAMES

    step: int
    subtask_id: str = renamed("subtask_id", old="task_id")
    proposal: ActionProposal
    arguments_sha256: str
    reason_code: ReasonCode
    message: str
    requested_at: datetime


class PendingApprovalSummary(BaseModel):
    """A pending approval as a person reads it: the proposal as one line (`describe()`), not
    its arguments, which may be a whole file. Small enough for the run's memo."""

    step: int
    subtask_id: str
    proposal: str
    arguments_sha256: str
    reason_code: ReasonCode
    message: str
    requested_at: datetime

    @classmethod
    def of(cls, pending: PendingApproval) -> PendingApprovalSummary:
        return cls(
            step=pending.step,
            subtask_id=pending.subtask_id,
            proposal=pending.proposal.describe(),
            arguments_sha256=pending.arguments_sha256,
            reason_code=pending.reason_code,
            message=pending.message,
            requested_at=pending.requested_at,
        )


# The memo key under which a run says what it waits for.
APPROVAL_MEMO = "approval"


class ApprovalMemo(BaseModel):
    """What a run keeps in its memo about approvals. The server returns a run's memo when it
    lists runs, with no worker involved, so `pending` reads it even while no worker is alive.
    Present from a run's first workflow task; `pending` is None while it waits for nothing."""

    pending: PendingApprovalSummary | None = None


class Approve(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approver: str = Field(min_length=1)
    # The digest of the proposal being approved, as shown by `pending`: a different proposal
    # (other arguments) is not covered.
    arguments_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    expires_at: datetime | None = None


class Deny(BaseModel):
    model_config = ConfigDict(extra="forbid")

    approver: str = Field(min_length=1)
    reason: str = Field(min_length=1)


class ApprovalDecision(BaseModel):
    """What the workflow records of a decision, and what the update returns."""

    step: int
    approved: bool
    approver: str
    arguments_sha256: str
    reason: str = ""
    decided_at: datetime
    expires_at: datetime | None = None
