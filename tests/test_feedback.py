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
