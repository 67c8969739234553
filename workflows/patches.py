"""The workflow's patches: one live (`approval-memo`, below), the others retired
(docs/decisions/0006-old-branches-retired.md).

Every behaviour once behind `workflow.patched` is now simply what the workflow does: a read
verified and run in one local activity, a write executed and checked in one activity, a step's
record written by the next proposal's, the plan drafted by `draft_plan`, a proposal's turns by
reference, a read that reuses the task's last check, the run's disk budget counted, a run that
did not complete failing its workflow. Runs started on an older build finish there (Worker
Deployment Versioning pins them); their histories are kept in `tests/histories/retired/`.

A run started on the build just before the cut asked three patches in its first workflow task
and recorded a marker for each. The SDK refuses to replay a marker nobody asks for ("Non-
deprecated patch marker encountered"), so the run still asks them, deprecated, at the same
point: such a run replays here, and a new run records them as deprecated markers, which a
later build may drop without asking. The calls go once no pinned version or unversioned worker
holds a run that recorded them.
"""

from __future__ import annotations

from temporalio import workflow

# Asked, in this order, in the first workflow task of every run started since
# "patches-decided-at-start"; the other four were asked only by runs started before it.
DEPRECATED = ("patches-decided-at-start", "fused-steps", "run-disk-budget")
RETIRED = (
    *DEPRECATED,
    "draft-plan-activity",
    "conversation-by-reference",
    "read-only-steps",
    "runs-not-completed-fail-the-workflow",
)


def deprecate_retired() -> None:
    """In the run's first workflow task, before its first command, as the patches were asked."""
    for patch_id in DEPRECATED:
        workflow.deprecate_patch(patch_id)


# Live. A run keeps what it waits for in its memo (workflows.approval_memo), so `pending` lists
# it from visibility while no worker is alive. Each memo change is a command (a "workflow
# properties modified" event), which a run recorded before it never issued: replayed with the
# memo, tests/histories/approval.json and every other recorded run would fail as non-
# deterministic. Asked in the first workflow task, after the deprecated ones (a patch asked later
# once moved on replay when a query split a workflow task: docs/performance.md): a run that
# started before it (no marker) keeps no memo to its end, on whichever worker it resumes.
APPROVAL_MEMO = "approval-memo"


def keeps_approval_memo() -> bool:
    """Whether this run keeps its pending approval in its memo; the same answer for the whole
    run (the SDK memoizes it), so setting and clearing the memo always agree."""
    return workflow.patched(APPROVAL_MEMO)
