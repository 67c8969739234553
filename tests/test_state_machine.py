"""The transition table is the law: every legal move works, every other move raises."""

from __future__ import annotations

import itertools

import pytest
from temporalio.exceptions import ApplicationError

from contracts import TERMINAL_STATES, RunState
from contracts.errors import IllegalTransition
from workflows.state_machine import TRANSITIONS, StateMachine, as_run_failure

S = RunState
LEGAL = [(source, target) for source, targets in TRANSITIONS.items() for target in sorted(targets)]
ILLEGAL = [
    (source, target) for source, target in itertools.product(RunState, RunState) if target not in TRANSITIONS[source]
]


def test_every_state_has_a_row() -> None:
    assert set(TRANSITIONS) == set(RunState)


@pytest.mark.parametrize(("source", "target"), LEGAL, ids=lambda s: s.value)
def test_every_legal_transition_is_allowed(source: RunState, target: RunState) -> None:
    machine = StateMachine(source)
    assert machine.advance(target) == target
    assert machine.state == target
    assert machine.trail == [source, target]


@pytest.mark.parametrize(("source", "target"), ILLEGAL, ids=lambda s: s.value)
def test_every_illegal_transition_raises_and_leaves_state_unchanged(source: RunState, target: RunState) -> None:
    machine = StateMachine(source)
    with pytest.raises(IllegalTransition) as raised:
        machine.advance(target)
    assert machine.state == source
    assert raised.value.source == source and raised.value.target == target


@pytest.mark.parametrize(
    ("source", "target"),
    [
        (S.CREATED, S.EXECUTING),  # skipping the goal, the plan and the verifier
        (S.PROPOSING, S.EXECUTING),  # executing an unverified proposal
        (S.VERIFYING, S.COMMITTED),  # committing without executing or checking
        (S.EXECUTING, S.COMMITTED),  # committing without checking postconditions
        (S.REJECTED, S.COMMITTED),
        (S.COMPLETED, S.PROPOSING),  # a finished run never resumes
        (S.FAILED, S.COMPLETED),
        (S.BUDGET_EXHAUSTED, S.PROPOSING),
        (S.COMMITTED, S.COMPLETED),  # completion only through acceptance
    ],
)
def test_named_shortcuts_are_illegal(source: RunState, target: RunState) -> None:
    with pytest.raises(IllegalTransition):
        StateMachine(source).advance(target)


def test_illegal_transition_fails_the_run_without_retrying() -> None:
    """In a workflow a plain exception would retry the workflow task forever."""
    error = as_run_failure(IllegalTransition(S.CREATED, S.COMPLETED))
    assert isinstance(error, ApplicationError)
    assert error.non_retryable and error.type == "IllegalTransition"
    assert error.message == "illegal transition CREATED -> COMPLETED"


def test_terminal_states_have_no_way_out() -> None:
    for state in TERMINAL_STATES:
        assert TRANSITIONS[state] == frozenset()


def test_every_live_state_can_fail() -> None:
    for state in set(RunState) - TERMINAL_STATES:
        assert S.FAILED in TRANSITIONS[state]


def test_every_state_is_reachable_and_can_end() -> None:
    reachable = {S.CREATED}
    frontier = [S.CREATED]
    while frontier:
        for target in TRANSITIONS[frontier.pop()]:
            if target not in reachable:
                reachable.add(target)
                frontier.append(target)
    assert reachable == set(RunState)
    for state in RunState:
        seen, stack = {state}, [state]
        while stack:
            for target in TRANSITIONS[stack.pop()] - seen:
                seen.add(target)
                stack.append(target)
        assert seen & TERMINAL_STATES, f"{state} cannot reach an end"


def test_a_two_step_run_walks_the_table() -> None:
    machine = StateMachine()
    path = [
        S.PREPARING, S.COMPILING_GOAL, S.PLANNING,
        S.PROPOSING, S.VERIFYING, S.REJECTED,  # a rejected proposal...
        S.PROPOSING, S.VERIFYING, S.EXECUTING, S.CHECKING, S.COMMITTED,  # ...then a committed one
        S.PROPOSING, S.CHECKING, S.COMMITTED,  # a checked claim of "finished"
        S.ACCEPTING, S.COMPLETED,
    ]  # fmt: skip
    for state in path:
        machine.advance(state)
    assert machine.trail == [S.CREATED, *path]
