"""What the model did wrong, by kind: counted from a trial's steps, then summarised per runtime."""

from __future__ import annotations

from contracts import ActionProposal, ReasonCode, StepRecord, Verdict
from experiments.config import FaultKind
from experiments.measure import behaviour
from experiments.metrics import summarize
from experiments.metrics.failures import CHANGED_NOTHING, OUT_OF_STEPS, SAID_DONE, failure_kind
from experiments.trial_record import TrialBehaviour, TrialRecord


def _step(n: int, outcome: str, proposal: ActionProposal | None, code: ReasonCode | None = None) -> StepRecord:
    verdict = Verdict(decision="reject" if code else "allow", reason_code=code or ReasonCode.ALLOWED)
    return StepRecord(step=n, subtask_id="t", outcome=outcome, proposal=proposal, verdict=verdict)  # type: ignore[arg-type]


def test_steps_are_counted_by_what_they_did() -> None:
    read = ActionProposal(tool="read_file", arguments={"path": "a.py"})
    edit = ActionProposal(tool="replace_in_file", arguments={"path": "a.py", "old": "a", "new": "b"})
    tests = ActionProposal(tool="run_command", arguments={"command": "python -m pytest -q"})
    steps = [
        _step(1, "committed", read),
        _step(2, "rejected", read, ReasonCode.REPEATED_ACTION),
        _step(3, "rejected", None),
        _step(4, "committed", edit),
        _step(5, "committed", tests),
        _step(6, "rejected", ActionProposal(kind="finish")),
    ]
    assert behaviour(steps) == TrialBehaviour(
        changes=1, commands=1, repeated_actions=1, unusable_answers=1, finish_refused=1
    )


def _trial(index: int, outcome: str, reason: str, counted: TrialBehaviour | None, success: bool = False) -> TrialRecord:
    return TrialRecord(
        experiment_id="e",
        trial_id=f"t{index}",
        task_id="t",
        runtime="durable",
        scenario="none",
        fault_kind=FaultKind.NONE,
        trial_index=index,
        seed=index,
        success=success,
        outcome=outcome,
        reason=reason,
        behaviour=counted,
    )


def test_a_failure_is_told_by_what_the_agent_did_and_how_the_run_ended() -> None:
    acted = TrialBehaviour(changes=1, repeated_actions=2)
    idle = TrialBehaviour(unusable_answers=1)
    assert failure_kind(_trial(0, "BUDGET_EXHAUSTED", "spent", idle)) == CHANGED_NOTHING
    assert failure_kind(_trial(1, "FAILED", "acceptance failed: x", acted)) == SAID_DONE
    assert failure_kind(_trial(2, "BUDGET_EXHAUSTED", "spent", acted)) == OUT_OF_STEPS
    # A record made before steps were counted is told by its ending alone.
    assert failure_kind(_trial(3, "BUDGET_EXHAUSTED", "spent", None)) == OUT_OF_STEPS

    trials = [
        _trial(0, "BUDGET_EXHAUSTED", "spent", idle),
        _trial(1, "FAILED", "acceptance failed: x", acted),
        _trial(2, "BUDGET_EXHAUSTED", "spent", acted),
        _trial(3, "COMPLETED", "", acted, success=True),
    ]
    (durable,) = summarize(trials).failures
    assert durable.failed == 3 and durable.counted == 3
    assert dict(durable.kinds) == {CHANGED_NOTHING: 1, SAID_DONE: 1, OUT_OF_STEPS: 1}
    assert (durable.repeated_actions, durable.unusable_answers) == (4, 1)
