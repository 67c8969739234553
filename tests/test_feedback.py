"""What the model is told after a step: the durable runtime's postcondition status is short, so it
costs a small model few tokens to read and leaves the step's own output whole."""

from __future__ import annotations

from agent import feedback
from contracts import PostconditionResult, ToolResult
from contracts.postconditions import PostconditionOutcome

PYTEST_FAILURE = "\n".join(
    [*(f"tests/test_stats.py:{n}: in test_{n}" for n in range(200)), "E   assert 2 == 2.5", "1 failed, 3 passed"]
)


def test_a_failed_check_is_told_by_its_last_lines_only() -> None:
    check = PostconditionResult(
        outcomes=[
            PostconditionOutcome(description="`python -m pytest -q` exits 0", passed=False, detail=PYTEST_FAILURE),
            PostconditionOutcome(description="README.md contains 'median'", passed=True),
        ]
    )
    said = feedback.after_check(check)

    assert said.splitlines()[0] == f"Task postconditions: {check.summary()}."
    assert "E   assert 2 == 2.5 | 1 failed, 3 passed" in said
    assert len(said) < 400, len(said)


def test_the_steps_own_output_comes_first_and_whole() -> None:
    output = "\n".join(f"line {n}" for n in range(100))
    check = PostconditionResult(outcomes=[PostconditionOutcome(description="x", passed=False, detail="no")])
    said = feedback.after_tool(ToolResult(tool="read_file", ok=True, output=output), check)

    assert said.startswith("read_file: ok\n" + output)
    assert said.endswith("- not yet: x: no")


def _failing(detail: str) -> PostconditionResult:
    return PostconditionResult(
        outcomes=[PostconditionOutcome(description="`python -m pytest -q` exits 0", passed=False, detail=detail)]
    )


def test_a_status_the_model_was_already_told_is_said_in_a_few_words() -> None:
    result = ToolResult(tool="read_file", ok=True, output="1: def f():")
    first = _failing("E   assert 2 == 3\n1 failed in 0.04s")
    told = feedback.after_check(first)
    # The same failures, a different duration: nothing new for the model.
    again = feedback.after_tool(result, _failing("E   assert 2 == 3\n1 failed in 0.31s"), told=told)
    assert again == "read_file: ok\n1: def f():\nTask postconditions: as before, 0/1 postconditions hold."
    # A different failure is told in full.
    changed = feedback.after_tool(result, _failing("E   assert 3 == 4\n1 failed in 0.05s"), told=told)
    assert changed.endswith("- not yet: `python -m pytest -q` exits 0: E   assert 3 == 4 | 1 failed in 0.05s")
    # Nothing told yet in the task: in full.
    assert feedback.after_tool(result, first) == "read_file: ok\n1: def f():\n" + told
