"""The agent-computer interface a small model works through: a windowed, numbered file viewer,
search, line edits, edits checked at once, and observations that fit a 4,096-token context."""

from __future__ import annotations

import sys
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import ValidationError

from agent import artifacts
from agent.execution import execute
from agent.sandbox.process import ProcessSandbox
from agent.tools import ops
from agent.tools.context import ToolContext
from agent.tools.output import MAX_OUTPUT_CHARS
from agent.tools.registry import TOOLS
from agent.tools.test_report import condense
from agent.tools.viewer import WINDOW_LINES
from agent.verification import verify
from contracts import ActionProposal, ExecuteToolInput, ReasonCode, RiskLevel
from contracts.errors import SyntaxCheckFailed, TextNotFound, ToolError
from tests.lab_dependencies import lab_deps


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    return path


def ctx(workspace: Path, ops_url: str | None = None) -> ToolContext:
    return ToolContext(
        workspace=workspace,
        run_id="r",
        world_id="r",
        step=1,
        idempotency_key=uuid.uuid4().hex,
        sandbox=ProcessSandbox(lab_deps().artifacts),
        artifacts=lab_deps().artifacts,
        ops_url=ops_url,
    )


async def call(workspace: Path, tool: str, **arguments: Any) -> str:
    """A tool as the runtimes run it: through the registry, output bounds included."""
    chosen = TOOLS[tool]
    outcome = await chosen.run(ctx(workspace), chosen.arguments.model_validate(arguments))
    assert isinstance(outcome, str)
    return outcome


def numbered_file(workspace: Path, name: str, count: int) -> Path:
    path = workspace / name
    path.write_text("".join(f"line {number}\n" for number in range(1, count + 1)))
    return path


# --- the registry ----------------------------------------------------------------------------


def test_the_new_tools_are_registered_with_their_risk_and_confined_paths() -> None:
    assert (TOOLS["search"].risk, TOOLS["search"].path_fields) == (RiskLevel.READ, ("path",))
    assert (TOOLS["edit_lines"].risk, TOOLS["edit_lines"].path_fields) == (RiskLevel.WRITE, ("path",))


def test_every_description_is_one_short_sentence() -> None:
    for tool in TOOLS.values():
        assert len(tool.description) <= 90 and tool.description.count(". ") <= 1, tool.name


@pytest.mark.parametrize("tool", ["search", "edit_lines"])
def test_the_verifier_confines_the_new_tools_paths(workspace: Path, tool: str) -> None:
    arguments = {"search": {"pattern": "x"}, "edit_lines": {"start_line": 1, "end_line": 1, "new": ""}}[tool]
    verdict = verify(workspace, ActionProposal(tool=tool, arguments={**arguments, "path": "../outside"}))
    assert verdict.reason_code == ReasonCode.PATH_OUTSIDE_WORKSPACE


# --- read_file: a numbered window ------------------------------------------------------------


async def test_read_file_shows_a_range_with_line_numbers(workspace: Path) -> None:
    numbered_file(workspace, "a.txt", 120)
    text = await call(workspace, "read_file", path="a.txt", start_line=9, end_line=11)
    assert text == "a.txt (lines 9-11 of 120)\n 9| line 9\n10| line 10\n11| line 11"


async def test_a_long_file_shows_its_first_window_and_how_to_see_more(workspace: Path) -> None:
    numbered_file(workspace, "long.txt", 250)
    text = await call(workspace, "read_file", path="long.txt")
    lines = text.splitlines()
    assert WINDOW_LINES == 60
    assert lines[0] == "long.txt (lines 1-60 of 250)"
    assert lines[1] == " 1| line 1" and lines[60] == "60| line 60"
    assert "line 61" not in text
    assert lines[-1] == "(190 more lines: read_file with start_line=61 shows them)"


async def test_a_range_past_the_end_is_clamped_and_one_past_it_refused(workspace: Path) -> None:
    numbered_file(workspace, "a.txt", 5)
    assert (await call(workspace, "read_file", path="a.txt", start_line=4, end_line=99)).splitlines() == [
        "a.txt (lines 4-5 of 5)",
        "4| line 4",
        "5| line 5",
    ]
    with pytest.raises(ToolError, match="has 5 lines: start_line 6 is past its end"):
        await call(workspace, "read_file", path="a.txt", start_line=6)


def test_a_range_that_ends_before_it_starts_is_invalid() -> None:
    with pytest.raises(ValidationError, match="end_line is before start_line"):
        TOOLS["read_file"].arguments.model_validate({"path": "a.txt", "start_line": 5, "end_line": 4})


async def test_wide_lines_fill_the_window_before_its_lines_do(workspace: Path) -> None:
    (workspace / "wide.txt").write_text("".join(f"{number:04d}" + "x" * 196 + "\n" for number in range(1, 101)))
    text = await call(workspace, "read_file", path="wide.txt")
    assert len(text) <= MAX_OUTPUT_CHARS
    shown = int(text.splitlines()[0].split("-")[1].split(" ")[0])
    assert 5 < shown < WINDOW_LINES
    assert text.endswith(f"read_file with start_line={shown + 1} shows them)")


async def test_an_empty_file_says_so(workspace: Path) -> None:
    (workspace / "empty.txt").write_text("")
    assert await call(workspace, "read_file", path="empty.txt") == "empty.txt (empty file)"


# --- search ----------------------------------------------------------------------------------


async def test_search_finds_a_literal_as_path_line_text(workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "m.py").write_text("import os\n\ndef total(xs):\n    return sum(xs)  # a.b\n")
    (workspace / "other.txt").write_text("total recall\naxb\n")
    text = await call(workspace, "search", pattern="total")
    assert text.splitlines() == [
        "2 matches for 'total' in .",
        "other.txt:1: total recall",
        "pkg/m.py:3: def total(xs):",
    ]
    # Literal: the dot is a dot.
    assert (await call(workspace, "search", pattern="a.b")).splitlines()[1:] == ["pkg/m.py:4: return sum(xs)  # a.b"]


async def test_search_with_a_regex_and_under_a_sub_path(workspace: Path) -> None:
    (workspace / "pkg").mkdir()
    (workspace / "pkg" / "m.py").write_text("def f():\n    return 1\ndef g():\n    return 2\n")
    (workspace / "top.py").write_text("def h():\n    pass\n")
    text = await call(workspace, "search", pattern=r"^def \w\(", regex=True, path="pkg")
    assert text.splitlines()[1:] == ["pkg/m.py:1: def f():", "pkg/m.py:3: def g():"]
    with pytest.raises(ToolError, match="invalid regex"):
        await call(workspace, "search", pattern="(", regex=True)


async def test_search_skips_machinery_binary_files_and_links_out_of_the_workspace(
    workspace: Path, tmp_path: Path
) -> None:
    (workspace / "__pycache__").mkdir()
    (workspace / "__pycache__" / "m.pyc").write_text("needle")
    (workspace / ".git").mkdir()
    (workspace / ".git" / "config").write_text("needle")
    (workspace / "blob.bin").write_bytes(b"needle\x00\x01")
    (tmp_path / "secret.txt").write_text("needle")
    (workspace / "link.txt").symlink_to(tmp_path / "secret.txt")
    (workspace / "real.txt").write_text("a needle\n")
    assert (await call(workspace, "search", pattern="needle")).splitlines() == [
        "1 matches for 'needle' in .",
        "real.txt:1: a needle",
    ]


async def test_search_caps_its_matches_and_counts_the_rest(workspace: Path) -> None:
    (workspace / "many.txt").write_text("hit\n" * 120)
    lines = (await call(workspace, "search", pattern="hit")).splitlines()
    assert lines[0].startswith("120 matches for 'hit' in . (first 50 shown")
    assert len(lines) == 51 and lines[-1] == "many.txt:50: hit"


async def test_search_without_a_match_says_so(workspace: Path) -> None:
    (workspace / "a.txt").write_text("nothing here\n")
    assert await call(workspace, "search", pattern="absent") == "no matches for 'absent' in ."


# --- edit_lines ------------------------------------------------------------------------------


async def test_edit_lines_replaces_a_range_and_shows_the_region(workspace: Path) -> None:
    path = numbered_file(workspace, "a.txt", 10)
    text = await call(workspace, "edit_lines", path="a.txt", start_line=5, end_line=6, new="five\nsix\nsix and a half")
    assert path.read_text().splitlines()[3:8] == ["line 4", "five", "six", "six and a half", "line 7"]
    assert text.splitlines() == [
        "replaced lines 5-6 of a.txt with 3 lines; now:",
        "a.txt (lines 3-9 of 11)",
        "3| line 3",
        "4| line 4",
        "5| five",
        "6| six",
        "7| six and a half",
        "8| line 7",
        "9| line 8",
    ]


async def test_edit_lines_inserts_deletes_and_keeps_the_last_newline(workspace: Path) -> None:
    path = numbered_file(workspace, "a.txt", 3)
    await call(workspace, "edit_lines", path="a.txt", start_line=2, end_line=1, new="inserted")
    assert path.read_text() == "line 1\ninserted\nline 2\nline 3\n"
    await call(workspace, "edit_lines", path="a.txt", start_line=3, end_line=4, new="")
    assert path.read_text() == "line 1\ninserted\n"
    await call(workspace, "edit_lines", path="a.txt", start_line=3, end_line=2, new="appended")
    assert path.read_text() == "line 1\ninserted\nappended\n"


async def test_edit_lines_out_of_range_is_refused_and_writes_nothing(workspace: Path) -> None:
    path = numbered_file(workspace, "a.txt", 3)
    with pytest.raises(ToolError, match="has 3 lines: lines 3-7 are not in it"):
        await call(workspace, "edit_lines", path="a.txt", start_line=3, end_line=7, new="x")
    assert path.read_text() == "line 1\nline 2\nline 3\n"
    with pytest.raises(ValidationError, match="end_line is before start_line"):
        TOOLS["edit_lines"].arguments.model_validate({"path": "a.txt", "start_line": 5, "end_line": 3, "new": ""})


# --- replace_in_file: the nearest match --------------------------------------------------------


async def test_a_near_miss_names_the_nearest_match_and_its_lines(workspace: Path) -> None:
    source = "import math\n\ndef median(xs):\n    xs = sorted(xs)\n    return xs[len(xs) // 2]\n"
    (workspace / "stats.py").write_text(source)
    with pytest.raises(TextNotFound) as raised:
        await call(workspace, "replace_in_file", path="stats.py", old="def median(xs):\n  xs = sorted(x)\n", new="")
    message = str(raised.value)
    assert message.startswith("text to replace not found in stats.py. The most similar text is at lines 3-4:\n")
    assert "3| def median(xs):\n4|     xs = sorted(xs)\n" in message
    assert (workspace / "stats.py").read_text() == source


async def test_line_numbers_copied_from_read_file_are_pointed_out(workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\ny = 2\n")
    with pytest.raises(TextNotFound, match="Leave out the line numbers read_file shows") as raised:
        await call(workspace, "replace_in_file", path="a.py", old="1| x = 1\n2| y = 2", new="")
    assert "lines 1-2" in str(raised.value)


async def test_nothing_similar_keeps_the_short_message_and_success_is_unchanged(workspace: Path) -> None:
    (workspace / "a.py").write_text("x = 1\n")
    with pytest.raises(TextNotFound) as raised:
        await call(workspace, "replace_in_file", path="a.py", old="completely different", new="")
    assert str(raised.value) == "text to replace not found in a.py"
    assert await call(workspace, "replace_in_file", path="a.py", old="1", new="2") == "replaced 1 occurrence(s) in a.py"


# --- Python edits are checked at once ------------------------------------------------------------

GOOD = "def f(x):\n    return x + 1\n"


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("write_file", {"content": "def f(x):\n    return (x + 1\n"}),
        ("replace_in_file", {"old": "return x + 1", "new": "return (x + 1"}),
        ("edit_lines", {"start_line": 2, "end_line": 2, "new": "    return (x + 1"}),
    ],
)
async def test_an_edit_that_breaks_python_is_refused_and_the_file_kept(
    workspace: Path, tool: str, arguments: dict[str, Any]
) -> None:
    (workspace / "m.py").write_text(GOOD)
    with pytest.raises(SyntaxCheckFailed) as raised:
        await call(workspace, tool, path="m.py", **arguments)
    assert (workspace / "m.py").read_text() == GOOD
    message = str(raised.value)
    assert message.startswith("edit refused, m.py left unchanged: it would not compile. Line 2: '(' was never closed")
    # The line, numbered, and a caret under the parenthesis.
    assert message.endswith("\n2|     return (x + 1\n" + " " * len("2|     return ") + "^")


async def test_a_new_python_file_that_does_not_compile_is_not_created(workspace: Path) -> None:
    with pytest.raises(SyntaxCheckFailed, match="Line 1: invalid syntax"):
        await call(workspace, "write_file", path="new.py", content="def f(:\n    pass\n")
    assert not (workspace / "new.py").exists()


async def test_the_refusal_is_a_failed_tool_result_like_any_tool_error(workspace: Path) -> None:
    (workspace / "m.py").write_text(GOOD)
    proposal = ActionProposal(tool="write_file", arguments={"path": "m.py", "content": "def (\n"})
    result = await execute(
        lab_deps(), ExecuteToolInput(workspace=str(workspace), proposal=proposal, run_id=uuid.uuid4().hex, step=1)
    )
    assert not result.ok
    assert result.error is not None and result.error.startswith("edit refused, m.py left unchanged")
    assert (workspace / "m.py").read_text() == GOOD


async def test_other_files_and_warnings_are_not_syntax_errors(workspace: Path) -> None:
    await call(workspace, "write_file", path="notes.txt", content="def (:")
    # An invalid escape is a SyntaxWarning (an error where warnings are errors, as in this suite).
    await call(workspace, "write_file", path="re_use.py", content='PATTERN = "\\d+"\n')
    assert (workspace / "re_use.py").read_text() == 'PATTERN = "\\d+"\n'


async def test_a_file_that_was_already_broken_may_be_edited_with_a_warning(workspace: Path) -> None:
    (workspace / "broken.py").write_text("def f(:\n    pass\nx = 1\n")
    text = await call(workspace, "replace_in_file", path="broken.py", old="x = 1", new="x = 2")
    assert text.startswith("replaced 1 occurrence(s) in broken.py\nwarning: broken.py still does not compile. Line 1")
    assert (workspace / "broken.py").read_text().endswith("x = 2\n")
    assert await call(workspace, "edit_lines", path="broken.py", start_line=1, end_line=1, new="def f():")
    assert "warning" not in await call(workspace, "write_file", path="broken.py", content=GOOD)


# --- an edit whose indentation is off is fitted, if that compiles --------------------------------

RANGES = 'def numbers_up_to(n):\n    """1..n."""\n    return list(range(1, n))\n'
FIXED = 'def numbers_up_to(n):\n    """1..n."""\n    return list(range(1, n + 1))\n'


@pytest.mark.parametrize(
    ("tool", "arguments", "fitted"),
    [
        # `old` copied without the line's indentation, `new` with it: 8 spaces as written.
        (
            "replace_in_file",
            {"old": "return list(range(1, n))", "new": "    return list(range(1, n + 1))"},
            "line 3: as written it would not compile, line 3: unexpected indent)",
        ),
        # A replacement line with no indentation at all.
        (
            "edit_lines",
            {"start_line": 3, "end_line": 3, "new": "return list(range(1, n + 1))"},
            "line 3: as written it would not compile, line 3: 'return' outside function)",
        ),
        # A whole module written indented, as if copied out of a larger block.
        (
            "write_file",
            {"content": "    " + FIXED.replace("\n    ", "\n        ")},
            "column 1: as written it would not compile, line 1: unexpected indent)",
        ),
    ],
)
async def test_an_edit_indented_wrongly_is_fitted_to_where_it_lands_and_says_so(
    workspace: Path, tool: str, arguments: dict[str, Any], fitted: str
) -> None:
    (workspace / "ranges.py").write_text(RANGES)
    said = await call(workspace, tool, path="ranges.py", **arguments)
    assert (workspace / "ranges.py").read_text() == FIXED
    assert said.endswith(f"\n(indentation fitted to {fitted}"), said


async def test_a_fitted_block_keeps_its_own_relative_indentation(workspace: Path) -> None:
    (workspace / "m.py").write_text("class A:\n    def f(self):\n        return 1\n")
    new = "def f(self):\n    if self:\n        return 2\n    return 1"
    said = await call(workspace, "replace_in_file", path="m.py", old="    def f(self):\n        return 1", new=new)
    assert (workspace / "m.py").read_text() == (
        "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n"
    )
    assert "indentation fitted to line 2" in said


async def test_an_edit_that_compiles_as_written_is_never_fitted(workspace: Path) -> None:
    (workspace / "m.py").write_text("def f():\n    return 1\n")
    # Valid as written (a module-level line after the function): kept exactly, though its
    # indentation differs from the line it replaces.
    said = await call(workspace, "edit_lines", path="m.py", start_line=2, end_line=2, new="    return 1\nX = 2")
    assert (workspace / "m.py").read_text() == "def f():\n    return 1\nX = 2\n"
    assert "fitted" not in said
    # Not Python: never checked, never fitted.
    (workspace / "notes.txt").write_text("a\n    b\n")
    await call(workspace, "replace_in_file", path="notes.txt", old="b", new="        c")
    assert (workspace / "notes.txt").read_text() == "a\n            c\n"


async def test_an_edit_no_indentation_saves_is_refused_for_what_was_written(workspace: Path) -> None:
    (workspace / "m.py").write_text(GOOD)
    with pytest.raises(SyntaxCheckFailed) as raised:
        await call(workspace, "replace_in_file", path="m.py", old="return x + 1", new="    return (x + 1")
    assert (workspace / "m.py").read_text() == GOOD
    # The error of the edit as the model wrote it (8 spaces), not of a fitted form.
    assert "\n2|         return (x + 1\n" in str(raised.value)
    # Two occurrences at different indentations: no one place to fit to.
    (workspace / "two.py").write_text("x = 1\nif x:\n    x = 1\n")
    with pytest.raises(SyntaxCheckFailed):
        await call(workspace, "replace_in_file", path="two.py", old="x = 1", new="  x = 2")


# --- test output, condensed -----------------------------------------------------------------------

PYTEST_OUTPUT = (
    """\
============================= test session starts ==============================
platform linux -- Python 3.11.7, pytest-8.3.4, pluggy-1.5.0
collected 42 items

tests/test_stats.py::test_mean PASSED                                    [  2%]
tests/test_stats.py::test_median FAILED                                  [  4%]
"""
    + "".join(f"tests/test_stats.py::test_ok[{n}] PASSED                   [ 50%]\n" for n in range(40))
    + """\
=================================== FAILURES ===================================
_________________________________ test_median __________________________________

    def test_median():
>       assert median([1, 2, 3, 4]) == 2.5
E       assert 3 == 2.5
E        +  where 3 = median([1, 2, 3, 4])

tests/test_stats.py:9: AssertionError
----------------------------- Captured stdout call -----------------------------
E debugging noise the test printed
=============================== warnings summary ===============================
tests/test_stats.py::test_mean
  DeprecationWarning: something old
=========================== short test summary info ============================
FAILED tests/test_stats.py::test_median - assert 3 == 2.5
=================== 1 failed, 41 passed, 1 warning in 0.12s ====================
"""
)


def test_pytest_output_keeps_what_failed_where_and_why() -> None:
    condensed = condense(PYTEST_OUTPUT)
    assert condensed is not None
    assert condensed.splitlines() == [
        f"[pytest output condensed from {len(PYTEST_OUTPUT.splitlines())} lines: only what failed, where and why]",
        "--- test_median",
        ">       assert median([1, 2, 3, 4]) == 2.5",
        "E       assert 3 == 2.5",
        "E        +  where 3 = median([1, 2, 3, 4])",
        "tests/test_stats.py:9: AssertionError",
        "FAILED tests/test_stats.py::test_median - assert 3 == 2.5",
        "=================== 1 failed, 41 passed, 1 warning in 0.12s ====================",
    ]


def test_other_output_and_short_runs_are_left_alone() -> None:
    assert condense("total 0\ndrwxr-xr-x 2 root root 40 .\n") is None
    assert condense("....\n4 passed in 0.01s\n") is None


def test_a_passing_verbose_run_is_its_summary_and_many_failures_fit_the_limit() -> None:
    passing = "".join(f"tests/t.py::test_{n} PASSED [ {n}%]\n" for n in range(100)) + "100 passed in 0.50s\n"
    assert (
        condense(passing)
        == "[pytest output condensed from 101 lines: only what failed, where and why]\n100 passed in 0.50s"
    )
    failures = "".join(
        f"____ test_{n} ____\n>       assert f({n})\nE       assert False\nt.py:{n}: AssertionError\n"
        for n in range(200)
    )
    many = "=== FAILURES ===\n" + failures + "=== short test summary info ===\n"
    many += "".join(f"FAILED t.py::test_{n} - assert False\n" for n in range(200)) + "200 failed in 1.00s\n"
    condensed = condense(many, limit=1500)
    assert condensed is not None and len(condensed) <= 1500
    assert "--- test_0\n" in condensed and "more failures not shown" in condensed
    assert "FAILED t.py::test_19 " in condensed and "... and 180 more" in condensed
    assert condensed.endswith("200 failed in 1.00s")


async def test_run_command_condenses_a_real_pytest_run_and_keeps_the_whole_as_an_artifact(workspace: Path) -> None:
    tests = "import pytest\n\n@pytest.mark.parametrize('n', range(30))\ndef test_ok(n):\n    print('chatter')\n\n"
    tests += "def test_bad():\n    print('chatter')\n    assert 1 + 1 == 3\n"
    (workspace / "test_it.py").write_text(tests)
    chosen = TOOLS["run_command"]
    command = f"{sys.executable} -m pytest -v -p no:cacheprovider test_it.py"
    outcome = await chosen.run(ctx(workspace), chosen.arguments(command=command))
    assert not isinstance(outcome, str)
    assert outcome.exit_code == 1 and outcome.truncated and outcome.artifact is not None
    assert "PASSED" not in outcome.output and "chatter" not in outcome.output
    assert "E       assert (1 + 1) == 3" in outcome.output
    assert "FAILED test_it.py::test_bad" in outcome.output
    assert outcome.output.splitlines()[-1].startswith("=") and "1 failed, 30 passed" in outcome.output
    whole = artifacts.read_text(outcome.artifact)
    assert whole.count("PASSED") == 30 and "chatter" in whole


# --- every observation is bounded -------------------------------------------------------------------


async def test_long_command_output_is_cut_with_a_note_and_kept_whole(workspace: Path) -> None:
    chosen = TOOLS["run_command"]
    outcome = await chosen.run(ctx(workspace), chosen.arguments(command="seq 1 3000"))
    assert not isinstance(outcome, str)
    assert len(outcome.output) < MAX_OUTPUT_CHARS + 100 and "characters omitted]" in outcome.output
    assert outcome.output.startswith("1\n2\n") and outcome.output.endswith("2999\n3000\n")
    assert outcome.artifact is not None and artifacts.read_text(outcome.artifact).count("\n") == 3000


async def test_a_long_listing_is_cut_with_a_note(workspace: Path) -> None:
    for number in range(400):
        (workspace / f"a_rather_long_file_name_{number:03d}.txt").write_text("")
    text = await call(workspace, "list_files")
    assert len(text) <= MAX_OUTPUT_CHARS
    assert text.endswith("more (list a subdirectory)")


async def test_a_service_answer_is_cut_with_a_note(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def huge_answer(*args: Any, **kwargs: Any) -> httpx.Response:
        return httpx.Response(201, text="x" * 50_000)

    monkeypatch.setattr(ops, "ops_request", huge_answer)
    chosen = TOOLS["create_ticket"]
    arguments = chosen.arguments(title="t", body="b")
    text = await chosen.run(ctx(workspace, ops_url="http://ops.invalid"), arguments)
    assert isinstance(text, str)
    assert len(text) < MAX_OUTPUT_CHARS + 100 and "characters omitted]" in text
