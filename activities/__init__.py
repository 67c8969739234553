"""Activities: every side effect of an agent run. The baseline calls the same functions directly."""

from activities.execution import execute_tool
from activities.model_calls import compile_goal, plan, propose_action
from activities.postconditions import check_postconditions
from activities.verification import verify_proposal
from activities.workspace import prepare_workspace

ALL_ACTIVITIES = [
    prepare_workspace,
    compile_goal,
    plan,
    propose_action,
    verify_proposal,
    execute_tool,
    check_postconditions,
]

__all__ = [
    "ALL_ACTIVITIES",
    "check_postconditions",
    "compile_goal",
    "execute_tool",
    "plan",
    "prepare_workspace",
    "propose_action",
    "verify_proposal",
]
