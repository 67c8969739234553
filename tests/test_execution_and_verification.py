"""The verifier (before a tool runs) and the executor (every failure becomes a ToolResult)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest

from agent.execution import execute
from agent.sandbox import select_sandbox
from agent.tools.registry import TOOLS
from agent.verification import verify
from contracts import ActionProposal, ExecuteToolInput, ReasonCode, ToolResult
from tests.lab_dependencies import lab_deps


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "a.txt").write_text("alpha beta\n")
    return path


def call(tool: str, **arguments: Any) -> ActionProposal:
    return ActionProposal(tool=tool, arguments=arguments)


async def run(workspace: Path, proposal: ActionProposal) -> ToolResult:
    """One call, as a fresh step of a fresh run (so no earlier effect is replayed)."""
    request = ExecuteToolInput(workspace=str(workspace), proposal=proposal, run_id=uuid.uuid4().hex, step=1)
    return await execute(lab_deps(), request)


# --- verify --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "proposal",
    [
        call("read_file", path="a.txt"),
        call("write_file", path="new/b.txt", content=""),
        call("replace_in_file", path="a.txt", old="alpha", new="gamma", count=1),
        call("list_files"),
        call("run_command", command="ls", timeout_s=5),
    ],
    ids=lambda proposal: proposal.tool,
)
def test_valid_tool_call_is_allowed(workspace: Path, proposal: ActionProposal) -> None:
    verdict = verify(workspace, proposal)
    assert verdict.allowed
    assert verdict.reason_code == ReasonCode.ALLOWED


@pytest.mark.parametrize("kind", ["finish", "give_up"])
def test_finish_and_give_up_are_not_tool_calls(workspace: Path, kind: str) -> None:
    verdict = verify(workspace, ActionProposal(kind=kind))
    assert not verdict.allowed
    assert verdict.reason_code == ReasonCode.NOT_A_TOOL_CALL
    assert kind in verdict.message


def test_unknown_tool_lists_the_known_tools(workspace: Path) -> None:
    verdict = verify(workspace, call("delete_everything"))
    assert not verdict.allowed
    assert verdict.reason_code == ReasonCode.UNKNOWN_TOOL
    assert "delete_everything" in verdict.message
    for name in TOOLS:
        assert name in verdict.message


def test_tool_call_without_tool_name_is_unknown_tool(workspace: Path) -> None:
    assert verify(workspace, ActionProposal(kind="tool_call")).reason_code == ReasonCode.UNKNOWN_TOOL


@pytest.mark.parametrize(
    ("proposal", "field", "problem"),
    [
        (call("read_file"), "path", "Field required"),
        (call("read_file", path=3), "path", "valid string"),
        (call("read_file", path="a.txt", mode="rb"), "mode", "Extra inputs are not permitted"),
        (call("write_file", path="a.txt"), "content", "Field required"),
        (call("replace_in_file", path="a.txt", old="", new="x"), "old", "at least 1 character"),
        (call("replace_in_file", path="a.txt", old="a", new="b", count=0), "count", "greater than or equal to 1"),
        (call("run_command", command="ls", timeout_s=601), "timeout_s", "less than or equal to 600"),
    ],
)
def test_invalid_arguments_name_the_field(workspace: Path, proposal: ActionProposal, field: str, problem: str) -> None:
    verdict = verify(workspace, proposal)
    assert not verdict.allowed
    assert verdict.reason_code == ReasonCode.INVALID_ARGUMENTS
    assert f"{field}: " in verdict.message
    assert problem in verdict.message


@pytest.mark.parametrize(
    "proposal",
    [
        call("read_file", path="../outside.txt"),
        call("read_file", path="/etc/passwd"),
        call("write_file", path="~/.bashrc", content="x"),
        call("replace_in_file", path="../../x", old="a", new="b"),
        call("list_files", path=".."),
    ],
    ids=lambda proposal: proposal.tool,
)
def test_path_outside_workspace_is_refused(workspace: Path, proposal: ActionProposal) -> None:
    verdict = verify(workspace, proposal)
    assert not verdict.allowed
    assert verdict.reason_code == ReasonCode.PATH_OUTSIDE_WORKSPACE


def test_symlink_leading_outside_is_refused(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("secret")
    (workspace / "innocent.txt").symlink_to(tmp_path / "secret.txt")
    verdict = verify(workspace, call("read_file", path="innocent.txt"))
    assert verdict.reason_code == ReasonCode.PATH_OUTSIDE_WORKSPACE


def test_symlink_loop_is_refused_not_raised(workspace: Path) -> None:
    (workspace / "loop").symlink_to("loop")
    assert not verify(workspace, call("read_file", path="loop")).allowed


def test_path_with_nul_byte_is_refused_not_raised(workspace: Path) -> None:
    assert not verify(workspace, call("read_file", path="a\x00b")).allowed


# --- execute -------------------------------------------------------------------------------


async def test_execute_read_file_returns_output(workspace: Path) -> None:
    result = await run(workspace, call("read_file", path="a.txt"))
    assert result.ok
    assert result.output == "a.txt (lines 1-1 of 1)\n1| alpha beta"
    assert result.error is None
    assert result.backend == "in-process"


async def test_execute_write_file_changes_workspace(workspace: Path) -> None:
    result = await run(workspace, call("write_file", path="sub/b.txt", content="bee"))
    assert result.ok
    assert (workspace / "sub" / "b.txt").read_text() == "bee"


async def test_execute_run_command_names_its_sandbox_and_exit_code(workspace: Path) -> None:
    result = await run(workspace, call("run_command", command="cat a.txt; exit 4"))
    assert result.ok  # a command that ran is a tool success, whatever its exit code
    chosen = select_sandbox(lab_deps().sandbox, lab_deps().artifacts)
    assert (result.backend, result.sandboxed) == (chosen.name, chosen.sandboxed)
    assert result.exit_code == 4
    assert result.output == "alpha beta\n"
    assert result.summary() == "run_command: exit 4"


async def test_execute_run_command_timeout_is_a_failed_result(workspace: Path) -> None:
    result = await run(workspace, call("run_command", command="sleep 30", timeout_s=0.2))
    assert not result.ok
    assert result.timed_out
    assert result.exit_code is None
    assert result.error == "timed out"


async def test_execute_unknown_tool_is_a_failed_result(workspace: Path) -> None:
    result = await run(workspace, call("rm_rf"))
    assert result == ToolResult(tool="rm_rf", ok=False, error="unknown tool 'rm_rf'")


async def test_execute_non_tool_proposal_is_a_failed_result(workspace: Path) -> None:
    result = await run(workspace, ActionProposal(kind="finish"))
    assert not result.ok
    assert result.error is not None and "unknown tool" in result.error


async def test_execute_invalid_arguments_is_a_failed_result_naming_the_field(workspace: Path) -> None:
    result = await run(workspace, call("write_file", path="b.txt"))
    assert not result.ok
    assert result.error is not None and "content: Field required" in result.error
    assert not (workspace / "b.txt").exists()


async def test_execute_tool_error_is_a_failed_result(workspace: Path) -> None:
    result = await run(workspace, call("replace_in_file", path="a.txt", old="zeta", new="eta"))
    assert not result.ok
    assert result.error == "text to replace not found in a.txt"
    assert (workspace / "a.txt").read_text() == "alpha beta\n"


async def test_execute_path_escape_is_a_failed_result_and_writes_nothing(workspace: Path, tmp_path: Path) -> None:
    result = await run(workspace, call("write_file", path="../escaped.txt", content="x"))
    assert not result.ok
    assert result.error is not None and "outside the workspace" in result.error
    assert not (tmp_path / "escaped.txt").exists()


async def test_execute_os_error_is_a_failed_result(workspace: Path) -> None:
    (workspace / "dir").mkdir()
    result = await run(workspace, call("write_file", path="dir", content="x"))
    assert not result.ok
    # Refused before anything is written, in words the model can act on (it was IsADirectoryError).
    assert result.error is not None and result.error.startswith("dir is a directory")


async def test_execute_content_with_lone_surrogate_is_a_failed_result(workspace: Path) -> None:
    # JSON may carry "\ud800"; pydantic accepts it as a str.
    result = await run(workspace, call("write_file", path="b.txt", content="\ud800"))
    assert not result.ok


async def test_execute_symlink_loop_is_a_failed_result(workspace: Path) -> None:
    (workspace / "loop").symlink_to("loop")
    result = await run(workspace, call("read_file", path="loop"))
    assert not result.ok


async def test_an_edit_that_cannot_be_written_leaves_the_file_as_it_was(workspace: Path) -> None:
    """Text is encoded before the file is touched: a failed edit never empties a file."""
    (workspace / "precious.txt").write_text("precious data")
    result = await run(workspace, call("replace_in_file", path="precious.txt", old="precious", new="\ud800"))
    assert not result.ok and "not valid text" in (result.error or "")
    assert (workspace / "precious.txt").read_text() == "precious data"
    assert sorted(p.name for p in workspace.iterdir() if p.name.startswith(".precious")) == []
