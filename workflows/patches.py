"""Which versions of the workflow's behaviour a run uses, decided once, in its first workflow task.

`workflow.patched(id)` must be asked at the same point of a run on replay as when it ran. A
run's patch decided after a local activity breaks that: when a query reaches the worker while
the local activity runs, the workflow task can complete with only the activity's marker and
the run go on in the next task, where the patch marker is recorded. On replay the local
activity resolves in the earlier task, `patched` is asked before the marker is known, answers
False, and the run fails with "Non-deprecated patch marker encountered ... but there is no
corresponding change command" (found by the soak; `tests/test_patches.py` shows it on the
SDK in use). Nothing can cross a task boundary before the first command, so runs started
since `DECIDED_AT_START` ask one patch there, and every behaviour older than it is on.

Runs started before it ask each patch where they always did and replay as recorded. A new
behaviour is added to `Patches` as a field decided at start, never by `workflow.patched`
further into the run.
"""

from __future__ import annotations

from dataclasses import dataclass

from temporalio import workflow

# Every behaviour below is on for runs started since this patch, asked in their first task.
DECIDED_AT_START = "patches-decided-at-start"

# Decided at start (fields of Patches):
# A read-only call is verified and run in one local activity, a write executed and checked in
# one activity, and a step's record written by the next proposal's (activities/fused.py, ADR 5).
FUSED_STEPS = "fused-steps"
# The run's host-disk budget (RunBudget.max_disk_bytes) is counted and checked before every
# proposal, and a step that ran a tool which may write records its checkpoint at its end (not
# with the next proposal), so that check reads the disk the step left.
RUN_DISK_BUDGET = "run-disk-budget"

# Before DECIDED_AT_START, each asked where it is used:
DRAFT_PLAN_ACTIVITY = "draft-plan-activity"  # `plan` became `draft_plan` (ADR 4)
CONVERSATION_BY_REFERENCE = "conversation-by-reference"  # a proposal's turns by reference
# A read-only tool runs as a local activity and its step reuses the task's last check.
READ_ONLY_STEPS = "read-only-steps"
# A run that did not complete fails its workflow (workflows.outcome, ADR 3).
NOT_COMPLETED_FAILS = "runs-not-completed-fail-the-workflow"

EARLIER = (DRAFT_PLAN_ACTIVITY, CONVERSATION_BY_REFERENCE, READ_ONLY_STEPS, NOT_COMPLETED_FAILS)


@dataclass(frozen=True)
class Patches:
    decided_at_start: bool
    fused_steps: bool = False
    run_disk_budget: bool = False

    @classmethod
    def decide(cls) -> Patches:
        """In the run's first workflow task, before its first command."""
        return cls(
            decided_at_start=workflow.patched(DECIDED_AT_START),
            fused_steps=workflow.patched(FUSED_STEPS),
            run_disk_budget=workflow.patched(RUN_DISK_BUDGET),
        )

    def on(self, patch_id: str) -> bool:
        """Whether the run uses the behaviour `patch_id` (one of EARLIER)."""
        if patch_id not in EARLIER:
            raise ValueError(f"{patch_id!r} is not a patch asked where it is used; decide it at start")
        return self.decided_at_start or workflow.patched(patch_id)
