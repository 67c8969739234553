"""The activities a worker registers: every side effect of an agent run."""

from activities.execution import execute_read_only_tool, execute_tool
from activities.fused import execute_and_check, record_then_propose, verify_and_read
from activities.ledger import append_ledger
from activities.model_calls import compile_goal, draft_plan, plan, propose_action
from activities.postconditions import check_postconditions
from activities.step_records import record_step
from activities.subtasks import merge_subtask, prepare_subtask
from activities.verification import verify_proposal
from activities.workspace import prepare_fork, prepare_workspace

ALL_ACTIVITIES = [
    prepare_workspace,
    compile_goal,
    draft_plan,
    plan,  # the name runs started before draft_plan still schedule
    propose_action,
    verify_proposal,
    execute_tool,
    execute_read_only_tool,
    check_postconditions,
    record_step,
    append_ledger,
    verify_and_read,
    execute_and_check,
    record_then_propose,
    prepare_fork,
    prepare_subtask,
    merge_subtask,
]

__all__ = ["ALL_ACTIVITIES"]
