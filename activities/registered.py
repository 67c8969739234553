"""The activities a worker registers: every side effect of an agent run, as methods of objects
built with the worker's Dependencies (what the core uses: its data directory, its services)."""

from collections.abc import Callable
from typing import Any

from activities.fused import FusedActivities
from activities.ledger import LedgerActivities
from activities.model_calls import ModelActivities
from activities.postconditions import PostconditionActivities
from activities.step_records import StepRecordActivities
from activities.subtasks import SubtaskActivities
from activities.verification import VerificationActivities
from activities.workspace import WorkspaceActivities
from agent.dependencies import Dependencies


def all_activities(deps: Dependencies) -> list[Callable[..., Any]]:
    """Every activity the workflow schedules (contracts.activity_names.SCHEDULED), under that name.
    The names only runs of builds before docs/decisions/0006 scheduled (`RETIRED`) are not
    registered: those runs finish on the build that started them."""
    models = ModelActivities(deps)
    fused = FusedActivities(deps)
    workspaces = WorkspaceActivities(deps)
    subtasks = SubtaskActivities(deps)
    return [
        workspaces.prepare_workspace,
        models.compile_goal,
        models.draft_plan,
        VerificationActivities(deps).verify_proposal,
        PostconditionActivities(deps).check_postconditions,
        StepRecordActivities(deps).record_step,
        LedgerActivities(deps).append_ledger,
        fused.verify_and_read,
        fused.execute_and_check,
        fused.record_then_propose,
        workspaces.prepare_fork,
        subtasks.prepare_subtask,
        subtasks.merge_subtask,
    ]


__all__ = ["all_activities"]
