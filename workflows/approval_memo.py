"""What a run waits for, kept in its memo: the server shows a run's memo to anyone who lists
runs, with no worker alive, where a query needs one (`python -m starter pending` reads it).

Only a run that asked the `approval-memo` patch keeps it (workflows.patches says why).
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from contracts.approval import APPROVAL_MEMO, ApprovalMemo, PendingApproval, PendingApprovalSummary
    from workflows.patches import keeps_approval_memo


def announce() -> None:
    """In the run's first workflow task: its memo says it waits for nothing, so a reader can
    tell it from a run that keeps no memo (one started before the patch)."""
    if keeps_approval_memo():
        workflow.upsert_memo({APPROVAL_MEMO: ApprovalMemo()})


def waiting_for(pending: PendingApproval | None) -> None:
    """The run starts waiting for `pending`, or (None) no longer waits."""
    if keeps_approval_memo():
        summary = PendingApprovalSummary.of(pending) if pending is not None else None
        workflow.upsert_memo({APPROVAL_MEMO: ApprovalMemo(pending=summary)})
