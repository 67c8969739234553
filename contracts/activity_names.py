"""The names the workflow schedules its activities by, and the worker registers them under.

Workflow code calls activities by name (`workflow.execute_activity(PROPOSE, ...)`), never by
importing them: the activity modules load the sandbox, the command policy and git, which
deterministic code has no use for. A name is part of every recorded history that scheduled it,
so none changes; a test mocks an activity by registering another function under its name.
"""

from __future__ import annotations

from typing import Final

# Remote activities (on the task queue, retried by the server).
PREPARE_WORKSPACE: Final = "prepare_workspace"
PREPARE_FORK: Final = "prepare_fork"
PREPARE_SUBTASK: Final = "prepare_subtask"
MERGE_SUBTASK: Final = "merge_subtask"
COMPILE_GOAL: Final = "compile_goal"
DRAFT_PLAN: Final = "draft_plan"
# The last step's record, then the next proposal (activities/fused.py).
RECORD_THEN_PROPOSE: Final = "record_then_propose"
# A write (or a command, or an effect) and the task's check after it.
EXECUTE_AND_CHECK: Final = "execute_and_check"
CHECK_POSTCONDITIONS: Final = "check_postconditions"

# Local activities (in the workflow's own worker, recorded as markers).
VERIFY_PROPOSAL: Final = "verify_proposal"
VERIFY_AND_READ: Final = "verify_and_read"
RECORD_STEP: Final = "record_step"
APPEND_LEDGER: Final = "append_ledger"

SCHEDULED: Final = frozenset(
    {
        PREPARE_WORKSPACE,
        PREPARE_FORK,
        PREPARE_SUBTASK,
        MERGE_SUBTASK,
        COMPILE_GOAL,
        DRAFT_PLAN,
        RECORD_THEN_PROPOSE,
        EXECUTE_AND_CHECK,
        CHECK_POSTCONDITIONS,
        VERIFY_PROPOSAL,
        VERIFY_AND_READ,
        RECORD_STEP,
        APPEND_LEDGER,
    }
)

# Scheduled only by runs started on builds before the cut of docs/decisions/0006 (retired
# workflow branches): this workflow no longer schedules them.
RETIRED: Final = frozenset({"plan", "propose_action", "execute_tool", "execute_read_only_tool"})
