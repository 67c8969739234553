"""The agent run's state machine as data: a transition table and a guard that enforces it.

Deterministic and free of I/O, so workflow code owns it. Models never choose a transition:
code calls `advance()` and an illegal move raises.
"""

from __future__ import annotations

from collections.abc import Mapping

from temporalio.exceptions import ApplicationError

from contracts.errors import IllegalTransition
from contracts.run_state import TERMINAL_STATES, RunState

S = RunState

_MOVES: Mapping[RunState, frozenset[RunState]] = {
    S.CREATED: frozenset({S.PREPARING}),
    # A subtask's child run takes its goal and its one subtask from its parent's plan.
    S.PREPARING: frozenset({S.COMPILING_GOAL, S.PLANNING}),
    S.COMPILING_GOAL: frozenset({S.PLANNING}),
    # Budgets are checked before every proposal, the first one included; a run with parallel
    # subtasks hands its ready subtasks to child runs instead (workflows.subtasks).
    S.PLANNING: frozenset({S.PROPOSING, S.DELEGATING, S.BUDGET_EXHAUSTED}),
    # Children end (each within its own budget), then their work merges in dependency order.
    S.DELEGATING: frozenset({S.MERGING}),
    # Next the subtasks that became ready, or the goal's acceptance; a child that did not complete
    # or work that did not merge sends the run back to planning, unless no revision is left.
    S.MERGING: frozenset({S.DELEGATING, S.ACCEPTING, S.REPLANNING, S.BUDGET_EXHAUSTED}),
    # A revised plan is verified (a DAG, no subtask of it done already) before its subtasks start.
    S.REPLANNING: frozenset({S.DELEGATING, S.BUDGET_EXHAUSTED}),
    # A tool call goes to verification, a claim of "finished" straight to the check,
    # an unusable answer is rejected.
    S.PROPOSING: frozenset({S.VERIFYING, S.CHECKING, S.REJECTED}),
    S.VERIFYING: frozenset({S.EXECUTING, S.REJECTED, S.AWAITING_APPROVAL}),
    # A person approves (execute) or denies (rejected, the reason fed back).
    S.AWAITING_APPROVAL: frozenset({S.EXECUTING, S.REJECTED}),
    S.EXECUTING: frozenset({S.CHECKING, S.REJECTED}),
    S.CHECKING: frozenset({S.COMMITTED, S.REJECTED}),
    S.COMMITTED: frozenset({S.PROPOSING, S.ACCEPTING, S.BUDGET_EXHAUSTED}),
    S.REJECTED: frozenset({S.PROPOSING, S.BUDGET_EXHAUSTED}),
    S.ACCEPTING: frozenset({S.COMPLETED}),
    S.COMPLETED: frozenset(),
    S.FAILED: frozenset(),
    S.BUDGET_EXHAUSTED: frozenset(),
}
# Every live state may also fail: an activity out of retries, a model that gives up.
TRANSITIONS: Mapping[RunState, frozenset[RunState]] = {
    state: targets if state in TERMINAL_STATES else targets | {S.FAILED} for state, targets in _MOVES.items()
}


def as_run_failure(error: IllegalTransition) -> ApplicationError:
    """In workflow code a plain exception fails the workflow *task*, which Temporal retries
    forever and the run hangs; an ApplicationError fails the run itself."""
    return ApplicationError(str(error), type=type(error).__name__, non_retryable=True)


class StateMachine:
    def __init__(self, state: RunState = RunState.CREATED) -> None:
        self._state = state
        self.trail: list[RunState] = [state]

    @property
    def state(self) -> RunState:
        return self._state

    def can(self, target: RunState) -> bool:
        return target in TRANSITIONS[self._state]

    def advance(self, target: RunState) -> RunState:
        if not self.can(target):
            raise IllegalTransition(self._state, target)
        self._state = target
        self.trail.append(target)
        return target
