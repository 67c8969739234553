"""Workspace tools: path confinement, file tools, shell commands and output truncation."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.sandbox.process import ProcessSandbox
from agent.tools.context import ToolContext
from agent.tools.files import (
    ListFilesArgs,
    ReadFileArgs,
    ReplaceInFileArgs,
    WriteFileArgs,
    list_files,
    read_file,
    replace_in_file,
    write_file,
)
from agent.tools.output import truncate
from agent.tools.paths import resolve_in_workspace
from contracts.errors import InvalidPath, PathOutsideWorkspace, ToolError
from tests.lab_dependencies import lab_deps


def ctx(workspace: Path) -> ToolContext:
    return ToolContext(
        workspace=workspace,
        run_id="r",
        world_id="r",
        step=1,
        idempotency_key="k",
        sandbox=ProcessSandbox(lab_deps().artifacts),
        artifacts=lab_deps().artifacts,
    )


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


# --- paths ---------------------------------------------------------------------------------


def test_relative_path_resolves_inside_workspace(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, "src/mod.py") == workspace.resolve() / "src" / "mod.py"


def test_dot_dot_inside_workspace_is_allowed(workspace: Path) -> None:
    assert resolve_in_workspace(workspace, "src/../mod.py") == workspace.resolve() / "mod.py"


@pytest.mark.parametrize("path", ["..", "../secret.txt", "src/../../secret.txt"])
def test_dot_dot_escape_is_refused(workspace: Path, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, path)


@pytest.mark.parametrize("path", ["/etc/passwd", "~", "~/notes.txt", "~root/x"])
def test_absolute_and_home_paths_are_refused(workspace: Path, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, path)


def test_absolute_path_into_the_workspace_itself_is_refused(workspace: Path) -> None:
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, str(workspace / "a.txt"))


@pytest.mark.parametrize("path", ["", "   "])
def test_empty_path_is_refused(workspace: Path, path: str) -> None:
    with pytest.raises(InvalidPath, match="empty"):
        resolve_in_workspace(workspace, path)


def test_symlink_pointing_outside_is_refused(workspace: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    (workspace / "link").symlink_to(outside)
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, "link/secret.txt")


def test_symlink_staying_inside_is_allowed(workspace: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "alias").symlink_to("real")
    assert resolve_in_workspace(workspace, "alias/f.txt") == workspace.resolve() / "real" / "f.txt"


# --- file tools ----------------------------------------------------------------------------


async def test_read_file_returns_numbered_content(workspace: Path) -> None:
    (workspace / "a.txt").write_text("hello\nworld\n")
    assert await read_file(ctx(workspace), ReadFileArgs(path="a.txt")) == "a.txt (lines 1-2 of 2)\n1| hello\n2| world"


async def test_read_missing_file_raises_tool_error(workspace: Path) -> None:
    with pytest.raises(ToolError, match=r"no such file: missing\.txt"):
        await read_file(ctx(workspace), ReadFileArgs(path="missing.txt"))


async def test_read_file_outside_workspace_is_refused(workspace: Path) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await read_file(ctx(workspace), ReadFileArgs(path="../x"))


async def test_read_large_file_is_truncated(workspace: Path) -> None:
    (workspace / "big.txt").write_text("HEAD" + "x" * 50_000 + "TAIL")
    text = await read_file(ctx(workspace), ReadFileArgs(path="big.txt"))
    assert len(text) < 4000
    assert text.startswith("big.txt (lines 1-1 of 1)\n1| HEAD") and text.endswith("TAIL")


async def test_write_file_creates_parent_directories(workspace: Path) -> None:
    message = await write_file(ctx(workspace), WriteFileArgs(path="deep/er/new.py", content="x = 1\n"))
    assert (workspace / "deep" / "er" / "new.py").read_text() == "x = 1\n"
    assert "deep/er/new.py" in message


async def test_write_file_overwrites(workspace: Path) -> None:
    (workspace / "a.txt").write_text("old")
    await write_file(ctx(workspace), WriteFileArgs(path="a.txt", content="new"))
    assert (workspace / "a.txt").read_text() == "new"


async def test_replace_in_file_replaces_every_occurrence(workspace: Path) -> None:
    (workspace / "a.py").write_text("foo(); foo(); foo()")
    message = await replace_in_file(ctx(workspace), ReplaceInFileArgs(path="a.py", old="foo", new="bar"))
    assert (workspace / "a.py").read_text() == "bar(); bar(); bar()"
    assert "replaced 3" in message


async def test_replace_in_file_count_replaces_first_n(workspace: Path) -> None:
    (workspace / "a.py").write_text("foo foo foo")
    message = await replace_in_file(ctx(workspace), ReplaceInFileArgs(path="a.py", old="foo", new="bar", count=2))
    assert (workspace / "a.py").read_text() == "bar bar foo"
    assert "replaced 2" in message


async def test_replace_in_file_count_above_occurrences_reports_actual(workspace: Path) -> None:
    (workspace / "a.py").write_text("foo")
    message = await replace_in_file(ctx(workspace), ReplaceInFileArgs(path="a.py", old="foo", new="bar", count=5))
    assert "replaced 1" in message


async def test_replace_in_file_missing_text_raises_and_keeps_file(workspace: Path) -> None:
    (workspace / "a.py").write_text("unchanged")
    with pytest.raises(ToolError, match=r"not found in a\.py"):
        await replace_in_file(ctx(workspace), ReplaceInFileArgs(path="a.py", old="absent", new="x"))
    assert (workspace / "a.py").read_text() == "unchanged"


async def test_replace_in_file_refuses_non_utf8_without_altering_bytes(workspace: Path) -> None:
    original = b"caf\xe9 foo \xff\xfe"
    (workspace / "latin1.txt").write_bytes(original)
    with pytest.raises(ToolError, match="not UTF-8"):
        await replace_in_file(ctx(workspace), ReplaceInFileArgs(path="latin1.txt", old="foo", new="bar"))
    assert (workspace / "latin1.txt").read_bytes() == original


async def test_replace_in_missing_file_raises_tool_error(workspace: Path) -> None:
    with pytest.raises(ToolError, match="no such file"):
        await replace_in_file(ctx(workspace), ReplaceInFileArgs(path="nope.py", old="a", new="b"))


async def test_list_files_lists_relative_posix_paths_and_hides_machinery(workspace: Path) -> None:
    (workspace / "pkg" / "sub").mkdir(parents=True)
    (workspace / "pkg" / "sub" / "m.py").write_text("")
    (workspace / "top.txt").write_text("")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text("")
    (workspace / "pkg" / "__pycache__").mkdir()
    (workspace / "pkg" / "__pycache__" / "m.cpython-311.pyc").write_bytes(b"")
    listing = await list_files(ctx(workspace), ListFilesArgs())
    assert listing.splitlines() == ["pkg/sub/m.py", "top.txt"]


async def test_list_files_of_subdirectory_keeps_workspace_relative_paths(workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "a.py").write_text("")
    (workspace / "other.py").write_text("")
    assert await list_files(ctx(workspace), ListFilesArgs(path="pkg")) == "pkg/a.py"


async def test_list_files_of_empty_directory(workspace: Path) -> None:
    assert await list_files(ctx(workspace), ListFilesArgs()) == "(no files)"


async def test_list_files_of_non_directory_raises(workspace: Path) -> None:
    (workspace / "f.txt").write_text("")
    with pytest.raises(ToolError, match="not a directory"):
        await list_files(ctx(workspace), ListFilesArgs(path="f.txt"))


# --- output --------------------------------------------------------------------------------


def test_truncate_leaves_short_text_alone() -> None:
    assert truncate("short", limit=10) == ("short", False)
    assert truncate("x" * 10, limit=10) == ("x" * 10, False)


def test_truncate_keeps_head_and_tail() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(1000))
    cut, truncated = truncate(text, limit=100)
    assert truncated
    head, tail = 75, 25
    assert cut.startswith(text[:head])
    assert cut.endswith(text[-tail:])
    assert f"[{1000 - head - tail} characters omitted]" in cut
    assert len(cut) < 200


@pytest.mark.parametrize(
    ("path", "expected"), [("/workspace/a.txt", "a.txt"), ("/workspace", "."), ("/workspace/./d/../a.txt", "a.txt")]
)
def test_the_sandbox_name_of_the_workspace_is_the_workspace(workspace: Path, path: str, expected: str) -> None:
    assert resolve_in_workspace(workspace, path) == (workspace / expected).resolve()


@pytest.mark.parametrize("path", ["/workspace/../etc/passwd", "/workspaces/x", "/workspace2/a", "/work/space"])
def test_only_the_workspace_itself_is_aliased(workspace: Path, path: str) -> None:
    with pytest.raises(PathOutsideWorkspace):
        resolve_in_workspace(workspace, path)
