"""The postcondition checker reads the real end state of a workspace."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.postconditions import check
from contracts import (
    CommandExitCode,
    FileContains,
    FileNotContains,
    Postcondition,
    PostconditionOutcome,
    PostconditionResult,
)
from tests.lab_dependencies import lab_deps


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "code.py").write_text("def order_total(items):\n    return sum(items)\n")
    return path


async def check_one(workspace: Path, postcondition: Postcondition) -> PostconditionOutcome:
    result = await check(lab_deps(), workspace, [postcondition])
    assert len(result.outcomes) == 1
    return result.outcomes[0]


async def test_command_exit_code_passes(workspace: Path) -> None:
    outcome = await check_one(workspace, CommandExitCode(command="test -f code.py"))
    assert outcome.passed
    assert outcome.detail == "exit 0"
    assert outcome.description == "`test -f code.py` exits 0"


async def test_command_exit_code_fails_with_output_in_detail(workspace: Path) -> None:
    outcome = await check_one(workspace, CommandExitCode(command="echo why-it-failed; exit 2"))
    assert not outcome.passed
    assert outcome.detail.startswith("exit 2")
    assert "why-it-failed" in outcome.detail


async def test_command_expected_to_exit_one_passes_on_one(workspace: Path) -> None:
    grep_absent = CommandExitCode(command="grep -rn calc_total .", expect_exit_code=1)
    assert (await check_one(workspace, grep_absent)).passed


async def test_command_expected_to_exit_one_fails_on_zero(workspace: Path) -> None:
    grep_present = CommandExitCode(command="grep -rn order_total .", expect_exit_code=1)
    outcome = await check_one(workspace, grep_present)
    assert not outcome.passed
    assert "code.py" in outcome.detail


async def test_command_timeout_fails(workspace: Path) -> None:
    outcome = await check_one(workspace, CommandExitCode(command="sleep 30", timeout_s=0.2))
    assert not outcome.passed
    assert "timed out" in outcome.detail


async def test_file_contains_passes(workspace: Path) -> None:
    assert (await check_one(workspace, FileContains(path="code.py", text="def order_total("))).passed


async def test_file_contains_fails_when_text_absent(workspace: Path) -> None:
    outcome = await check_one(workspace, FileContains(path="code.py", text="def calc_total("))
    assert not outcome.passed


async def test_file_contains_fails_on_missing_file(workspace: Path) -> None:
    outcome = await check_one(workspace, FileContains(path="absent.py", text="x"))
    assert not outcome.passed
    assert outcome.detail == "file missing"


async def test_file_not_contains_passes_when_text_absent(workspace: Path) -> None:
    assert (await check_one(workspace, FileNotContains(path="code.py", text="calc_total"))).passed


async def test_file_not_contains_fails_when_text_present(workspace: Path) -> None:
    assert not (await check_one(workspace, FileNotContains(path="code.py", text="order_total"))).passed


async def test_file_not_contains_passes_on_missing_file(workspace: Path) -> None:
    assert (await check_one(workspace, FileNotContains(path="absent.py", text="x"))).passed


@pytest.mark.parametrize("kind", [FileContains, FileNotContains])
async def test_path_escaping_workspace_fails_without_reading_outside(
    workspace: Path, tmp_path: Path, kind: type[FileContains] | type[FileNotContains]
) -> None:
    # Outside the workspace lies a file for which either check, if it read it, would pass.
    (tmp_path / "outside.txt").write_text("present")
    text = "present" if kind is FileContains else "absent"
    outcome = await check_one(workspace, kind(path="../outside.txt", text=text))
    assert not outcome.passed
    assert "outside the workspace" in outcome.detail


async def test_symlink_escaping_workspace_fails(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("present")
    (workspace / "link.txt").symlink_to(tmp_path / "outside.txt")
    outcome = await check_one(workspace, FileContains(path="link.txt", text="present"))
    assert not outcome.passed


async def test_check_keeps_order_and_reports_every_outcome(workspace: Path) -> None:
    result = await check(
        lab_deps(),
        workspace,
        [
            FileContains(path="code.py", text="order_total"),
            FileContains(path="code.py", text="calc_total"),
            CommandExitCode(command="true"),
        ],
    )
    assert [outcome.passed for outcome in result.outcomes] == [True, False, True]
    assert not result.passed
    assert result.summary() == "2/3 postconditions hold"
    assert [failure.description for failure in result.failures()] == ["code.py contains 'calc_total'"]


def test_result_passes_only_when_every_outcome_passes() -> None:
    held = PostconditionOutcome(description="a", passed=True)
    broken = PostconditionOutcome(description="b", passed=False)
    assert PostconditionResult(outcomes=[held, held]).passed
    assert not PostconditionResult(outcomes=[held, broken]).passed
    assert PostconditionResult(outcomes=[held, broken]).failures() == [broken]


def test_empty_result_passes_and_says_so() -> None:
    result = PostconditionResult()
    assert result.passed
    assert result.failures() == []
    assert result.summary() == "no postconditions"
