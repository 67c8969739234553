"""What a workspace can do to the host code that reads it, outside the sandbox, attempted for
real: a FIFO (whose open() blocks until a writer comes), a tree 1,100 levels deep, a 256 MiB
file, a regex that backtracks for ever, writes aimed at the workspace itself. Each attack is
run as the red team ran it, with the verifier bypassed (the tools are called directly), except
where the verifier's own fingerprint is what is attacked."""

from __future__ import annotations

import asyncio
import contextlib
import os
import subprocess
import threading
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent import fingerprint
from agent.fingerprint import workspace_fingerprint
from agent.hostile_tree import MAX_DEPTH
from agent.postconditions import check
from agent.sandbox.process import ProcessSandbox
from agent.tools import search as search_tool
from agent.tools.context import ToolContext
from agent.tools.files import (
    EditLinesArgs,
    ListFilesArgs,
    ReadFileArgs,
    ReplaceInFileArgs,
    WriteFileArgs,
    edit_lines,
    list_files,
    read_file,
    replace_in_file,
    write_file,
)
from agent.tools.output import MAX_OUTPUT_CHARS
from agent.tools.search import SearchArgs, search
from agent.tools.test_report import condense
from agent.verification import verify
from contracts import ActionProposal, FileContains, FileNotContains, ReasonCode
from contracts.errors import PathOutsideWorkspace, ToolError
from tests.lab_dependencies import lab_deps

# Generous: each call answers in milliseconds; the old code never answered at all.
_PROMPT_S = 10.0
_READ = ActionProposal(kind="tool_call", tool="read_file", arguments={"path": "notes.txt"})


def _ctx(workspace: Path) -> ToolContext:
    return ToolContext(
        workspace=workspace,
        run_id="r",
        world_id="r",
        step=1,
        idempotency_key="k",
        sandbox=ProcessSandbox(lab_deps().artifacts),
        artifacts=lab_deps().artifacts,
    )


def _promptly(work: Callable[[], Any], timeout: float = _PROMPT_S) -> Any:
    """`work`'s result (or exception), from a thread that must end within `timeout`: a hang
    fails the test instead of hanging it (a thread blocked in open() cannot be cancelled)."""
    outcome: dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["result"] = work()
        except BaseException as error:  # re-raised in the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(timeout)
    if thread.is_alive():
        pytest.fail(f"still running after {timeout} s: the host-side step hung")
    if "error" in outcome:
        raise outcome["error"]
    return outcome["result"]


def _tool(coroutine: Callable[[], Any]) -> Any:
    return _promptly(lambda: asyncio.run(coroutine()))


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "notes.txt").write_text("todo\n")
    return path


@pytest.fixture
def fifo(workspace: Path) -> Path:
    path = workspace / "pipe"
    os.mkfifo(path)
    yield path
    # Releases a reader the old code left blocked in open(), so no thread outlives the test.
    with contextlib.suppress(OSError):
        os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))


@pytest.fixture
def deep() -> Iterator[Callable[[Path, int], Path]]:
    """Makes a tree `levels` directories deep under a root (its bottom returned), and removes
    it after the test: pytest's own cleanup (shutil.rmtree) recurses, and would crash on it."""
    made: list[Path] = []

    def make(root: Path, levels: int) -> Path:
        made.append(root / "d")
        # Relative mkdirs: os.makedirs itself recurses and fails at this depth.
        start = os.getcwd()
        os.chdir(root)
        try:
            for _ in range(levels):
                os.mkdir("d")
                os.chdir("d")
            return Path(os.getcwd())
        finally:
            os.chdir(start)

    yield make
    for top in made:
        subprocess.run(["find", str(top), "-depth", "-delete"], check=True)  # iterative (fts)


# --- a FIFO ----------------------------------------------------------------------------------


def test_a_fifo_never_hangs_the_verifier_twice_in_a_row(workspace: Path, fifo: Path) -> None:
    for _ in range(2):
        verdict = _promptly(lambda: verify(workspace, _READ, executed=[]))
        assert verdict.allowed and verdict.fingerprint
    before = workspace_fingerprint(workspace)
    fifo.unlink()
    fifo.write_text("")
    assert workspace_fingerprint(workspace) != before, "a FIFO counts by its kind: a file in its place is a change"


def test_the_file_tools_answer_a_fifo_at_once_with_typed_results(workspace: Path, fifo: Path) -> None:
    ctx = _ctx(workspace)
    assert _tool(lambda: list_files(ctx, ListFilesArgs())) == "notes.txt"
    assert _tool(lambda: search(ctx, SearchArgs(pattern="todo"))).splitlines() == [
        "1 matches for 'todo' in .",
        "notes.txt:1: todo",
    ]
    with pytest.raises(ToolError, match="pipe is a FIFO, not a regular file"):
        _tool(lambda: read_file(ctx, ReadFileArgs(path="pipe")))
    with pytest.raises(ToolError, match="pipe is neither a file nor a directory"):
        _tool(lambda: search(ctx, SearchArgs(pattern="x", path="pipe")))
    with pytest.raises(ToolError, match="pipe is a FIFO"):
        _tool(lambda: replace_in_file(ctx, ReplaceInFileArgs(path="pipe", old="a", new="b")))
    with pytest.raises(ToolError, match="pipe is a FIFO"):
        _tool(lambda: edit_lines(ctx, EditLinesArgs(path="pipe", start_line=1, end_line=1, new="x")))
    # A write replaces whatever is at the path, by a rename: nothing there is opened.
    os.mkfifo(workspace / "other.py")
    _tool(lambda: write_file(ctx, WriteFileArgs(path="other.py", content="x = 1\n")))
    assert (workspace / "other.py").read_text() == "x = 1\n"


def test_a_postcondition_on_a_fifo_fails_at_once(workspace: Path, fifo: Path) -> None:
    checked = _promptly(
        lambda: asyncio.run(
            check(lab_deps(), workspace, [FileContains(path="pipe", text="x"), FileNotContains(path="pipe", text="x")])
        )
    )
    assert [outcome.passed for outcome in checked.outcomes] == [False, True]
    assert checked.outcomes[0].detail == "file missing"


# --- a tree 1,100 levels deep ----------------------------------------------------------------


def test_a_tree_1100_levels_deep_raises_no_recursion_error(workspace: Path, deep: Any) -> None:
    bottom = deep(workspace, 1100)
    (bottom / "deep.txt").write_text("needle\n")
    ctx = _ctx(workspace)
    verdict = _promptly(lambda: verify(workspace, _READ, executed=[]))
    assert verdict.allowed and verdict.fingerprint
    listing = _tool(lambda: list_files(ctx, ListFilesArgs()))
    assert listing.splitlines()[0] == "notes.txt"
    assert f"1 directories not listed: deeper than {MAX_DEPTH} levels" in listing
    found = _tool(lambda: search(ctx, SearchArgs(pattern="todo")))
    assert found.splitlines()[:2] == ["1 matches for 'todo' in .", "notes.txt:1: todo"]
    assert "too deep to search were left out" in found


def test_a_change_among_a_cut_directorys_entries_still_changes_the_fingerprint(workspace: Path, deep: Any) -> None:
    deep(workspace, MAX_DEPTH + 5)
    cut = workspace / "/".join(["d"] * MAX_DEPTH)
    before = workspace_fingerprint(workspace)
    (cut / "new.txt").write_text("x")
    assert workspace_fingerprint(workspace) != before


# --- a 256 MiB file --------------------------------------------------------------------------


def _peak_mib(work: Callable[[], Any]) -> tuple[Any, float]:
    tracemalloc.start()
    try:
        result = work()
        return result, tracemalloc.get_traced_memory()[1] / 1024**2
    finally:
        tracemalloc.stop()


def test_reading_a_256_mib_file_of_one_line_holds_a_window_not_the_file(workspace: Path) -> None:
    with (workspace / "one.txt").open("wb") as out:
        out.write(b"HEAD")
        out.truncate(256 * 1024**2)  # sparse: the disk holds almost nothing
        out.seek(0, os.SEEK_END)
        out.write(b"TAIL\n")
    ctx = _ctx(workspace)
    text, peak = _peak_mib(lambda: _tool(lambda: read_file(ctx, ReadFileArgs(path="one.txt"))))
    assert peak < 32, f"{peak:.1f} MiB held to show one line"
    lines = text.splitlines()
    assert lines[0] == "one.txt (lines 1-1 of 1)" and lines[1].startswith("1| HEAD") and lines[-1].endswith("TAIL")
    # Counted, not read into memory: "1| " and HEAD, the zeros, TAIL, less what is shown.
    shown = MAX_OUTPUT_CHARS - len("one.txt") - 200
    assert f"[{3 + 256 * 1024**2 + 4 - shown} characters omitted]" in text


def test_a_long_line_amid_short_ones_is_shown_by_its_two_ends_and_its_true_length(workspace: Path) -> None:
    (workspace / "mixed.txt").write_bytes(b"short\n" + b"\xc3\xa9" * (3 * 1024**2) + b"END\nafter\n")
    text = _tool(lambda: read_file(_ctx(workspace), ReadFileArgs(path="mixed.txt", start_line=2)))
    lines = text.splitlines()
    assert lines[0] == "mixed.txt (lines 2-2 of 3)" and lines[1].startswith("2| \u00e9\u00e9")
    shown = MAX_OUTPUT_CHARS - len("mixed.txt") - 200
    # Characters, not bytes: each \u00e9 is two bytes.
    assert f"[{3 + 3 * 1024**2 + 3 - shown} characters omitted]" in text
    assert lines[-2].endswith("\u00e9END") and lines[-1] == "(1 more lines: read_file with start_line=3 shows them)"


def test_reading_a_256_mib_file_of_short_lines_holds_a_window_not_the_file(workspace: Path) -> None:
    lines_in_a_block = 1024 * 1024 // 8
    block = b"".join(b"line %d\n" % number for number in range(lines_in_a_block))
    blocks = 0
    with (workspace / "many.txt").open("wb") as out:
        while out.tell() < 256 * 1024**2:
            out.write(block)
            blocks += 1
    ctx = _ctx(workspace)
    text, peak = _peak_mib(lambda: _tool(lambda: read_file(ctx, ReadFileArgs(path="many.txt"))))
    assert peak < 32, f"{peak:.1f} MiB held to show 60 lines"
    lines = text.splitlines()
    assert lines[0].startswith("many.txt (lines 1-60 of at least ")
    assert lines[1] == " 1| line 0" and lines[-1] == "(more lines: read_file with start_line=61 shows them)"
    far = 20_000_000
    text, peak = _peak_mib(
        lambda: _tool(lambda: read_file(ctx, ReadFileArgs(path="many.txt", start_line=far, end_line=far + 1)))
    )
    assert peak < 32
    # Near the end, the lines after the window are few enough to count.
    assert text.splitlines() == [
        f"many.txt (lines {far}-{far + 1} of {blocks * lines_in_a_block})",
        f"{far}| line {(far - 1) % lines_in_a_block}",
        f"{far + 1}| line {far % lines_in_a_block}",
    ]


def test_an_edit_of_a_file_over_the_cap_is_refused_before_it_is_read(workspace: Path) -> None:
    (workspace / "big.txt").write_bytes(b"x = 1\n" * (1024 * 1024))
    # Compiled by the syntax check at about a second a MiB, the GIL held: a lower cap.
    (workspace / "big.py").write_bytes(b"x = 1\n" * (200 * 1024))
    ctx = _ctx(workspace)
    with pytest.raises(ToolError, match=r"big.txt is 6.0 MiB: the edit tools change files of up to 4 MiB"):
        _tool(lambda: replace_in_file(ctx, ReplaceInFileArgs(path="big.txt", old="x", new="y")))
    with pytest.raises(ToolError, match=r"big.py is 1.2 MiB: .* \(Python files, which they compile, of up to 1 MiB\)"):
        _tool(lambda: edit_lines(ctx, EditLinesArgs(path="big.py", start_line=1, end_line=1, new="y = 1")))


# --- a regex that backtracks for ever ---------------------------------------------------------


async def test_a_catastrophic_regex_is_stopped_at_the_deadline_and_the_worker_keeps_running(
    workspace: Path,
) -> None:
    (workspace / "a.txt").write_text("a" * 40 + "!\n")
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    ticker = asyncio.create_task(tick())
    started = time.monotonic()
    with pytest.raises(ToolError, match=r"search stopped at its 5 s limit in a.txt.*nested repetition"):
        await asyncio.wait_for(search(_ctx(workspace), SearchArgs(pattern="(a+)+$", regex=True)), _PROMPT_S + 5)
    elapsed = time.monotonic() - started
    ticker.cancel()
    assert elapsed < search_tool.SEARCH_DEADLINE_S + 5
    # `re` holds the GIL while it backtracks: in-process, nothing else in the worker would run.
    assert ticks > search_tool.SEARCH_DEADLINE_S / 0.05 / 2


def test_a_command_output_built_to_backtrack_is_condensed_at_once() -> None:
    """A command's output is the workspace's too, and is condensed on the host."""
    output = "1 passed " * 400_000 + "\n" + "a::b" * 1_000_000 + "\n" + "1 passed in 0.01s\n"
    condensed = _promptly(lambda: condense(output))
    assert condensed is not None and condensed.endswith("1 passed in 0.01s")


# --- writes aimed at the workspace itself ------------------------------------------------------


@pytest.mark.parametrize("path", [".", "src/..", "/workspace", "src"])
def test_a_write_to_the_workspace_or_a_directory_is_refused_before_anything_is_written(
    workspace: Path, path: str
) -> None:
    (workspace / "src").mkdir()
    parent = workspace.parent
    before = (sorted(os.listdir(parent)), os.stat(parent).st_mtime_ns, sorted(os.listdir(workspace)))
    time.sleep(0.02)  # so that a file made and removed would move the directories' mtimes
    with pytest.raises(ToolError, match=r"is the workspace itself|is a directory"):
        _tool(lambda: write_file(_ctx(workspace), WriteFileArgs(path=path, content="x")))
    after = (sorted(os.listdir(parent)), os.stat(parent).st_mtime_ns, sorted(os.listdir(workspace)))
    assert after == before, "a scratch file was made (and perhaps removed) outside the workspace"


def test_the_workspaces_host_path_is_refused_as_any_absolute_path(workspace: Path) -> None:
    before = sorted(os.listdir(workspace.parent))
    with pytest.raises(PathOutsideWorkspace):
        _tool(lambda: write_file(_ctx(workspace), WriteFileArgs(path=str(workspace), content="x")))
    assert sorted(os.listdir(workspace.parent)) == before


# --- the verifier's fingerprint has a deadline -------------------------------------------------


def test_a_workspace_too_large_to_fingerprint_in_time_is_refused_not_waited_on(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(fingerprint, "FINGERPRINT_DEADLINE_S", -1.0)
    verdict = _promptly(lambda: verify(workspace, _READ, executed=[]))
    assert verdict.decision == "reject" and verdict.reason_code == ReasonCode.RESOURCE_EXHAUSTION
    assert "could not be read within" in verdict.message
