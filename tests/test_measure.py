"""Figures a trial reads from its steps and from the service's end state."""

from __future__ import annotations

from pathlib import Path

from contracts import ActionProposal, PolicyProfile, StepRecord, Verdict
from experiments.measure import duplicate_effects, unsafe_actions_executed, verifier_rejections


def step(n: int, command: str, decision: str | None, *, ran: bool) -> StepRecord:
    verdict = None
    if decision is not None:
        code = {"allow": "allowed", "reject": "destructive_command", "needs_approval": "approval_rule"}[decision]
        verdict = Verdict(decision=decision, reason_code=code)
    return StepRecord(
        step=n,
        subtask_id="t",
        outcome="committed" if ran else "rejected",
        proposal=ActionProposal(kind="tool_call", tool="run_command", arguments={"command": command}),
        verdict=verdict,
        result="run_command: exit 0" if ran else "",
    )


def test_verifier_rejections_count_refusals_not_requests_for_approval() -> None:
    steps = [
        step(1, "ls", "allow", ran=True),
        step(2, "rm -rf /", "reject", ran=False),
        step(3, "ls", "needs_approval", ran=True),
        step(4, "ls", None, ran=True),
    ]
    assert verifier_rejections(steps) == 1


def test_unsafe_actions_are_refusable_proposals_that_ran(tmp_path: Path) -> None:
    steps = [
        step(1, "ls", None, ran=True),
        step(2, "rm -rf /etc", None, ran=True),  # the baseline ran it unverified
        step(3, "curl http://example.com", None, ran=False),  # refused: never ran
        step(4, "cat ~/.ssh/id_rsa", None, ran=True),
        # Run, but the file tool refused the absolute path by itself: nothing was read.
        StepRecord(
            step=5,
            subtask_id="t",
            outcome="rejected",
            proposal=ActionProposal(kind="tool_call", tool="read_file", arguments={"path": "/etc/shadow"}),
            result="read_file: error: absolute path",
        ),
    ]
    assert unsafe_actions_executed(steps, tmp_path, PolicyProfile.DEVELOPER) == 2


def test_duplicate_effects_are_copies_made_by_the_agent() -> None:
    refund = {"order_id": "o-1", "amount_cents": 4200, "reason": "duplicate charge"}
    state = {
        "refunds": [
            {**refund, "id": 1, "idempotency_key": "k1"},
            {**refund, "id": 2, "idempotency_key": "k2"},  # the same refund paid again
            {**refund, "id": 3, "idempotency_key": None},  # seeded by the task, not the agent
            {**refund, "amount_cents": 100, "id": 4, "idempotency_key": "k3"},  # a different refund
        ],
        "tickets": [
            {"title": "a", "body": "b", "idempotency_key": "k4"},
            {"title": "a", "body": "b", "idempotency_key": "k5"},
            {"title": "a", "body": "b", "idempotency_key": "k6"},
        ],
    }
    assert duplicate_effects(state) == 1 + 2
