"""States of an agent run. Which moves between them are legal lives in workflows.state_machine."""

from enum import StrEnum


class RunState(StrEnum):
    CREATED = "CREATED"
    PREPARING = "PREPARING"
    COMPILING_GOAL = "COMPILING_GOAL"
    PLANNING = "PLANNING"
    # A run with parallel subtasks: its children run, their work merges, its plan is revised.
    DELEGATING = "DELEGATING"
    MERGING = "MERGING"
    REPLANNING = "REPLANNING"
    PROPOSING = "PROPOSING"
    VERIFYING = "VERIFYING"
    AWAITING_APPROVAL = "AWAITING_APPROVAL"
    EXECUTING = "EXECUTING"
    CHECKING = "CHECKING"
    COMMITTED = "COMMITTED"
    REJECTED = "REJECTED"
    ACCEPTING = "ACCEPTING"
    COMPLETED = "COMPLETED"
    FAILED = "FAILED"
    BUDGET_EXHAUSTED = "BUDGET_EXHAUSTED"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATES


TERMINAL_STATES = frozenset({RunState.COMPLETED, RunState.FAILED, RunState.BUDGET_EXHAUSTED})
