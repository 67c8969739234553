"""Every problem of a task, script or config named, each with where it is; a YAML syntax error
shown at its line and column with the line itself. Through the loaders and through the CLI."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from contracts import TaskSpec
from contracts.errors import ScriptInvalid
from contracts.problems import Problem, in_one_line, problems_of
from contracts.script import parse_script
from contracts.yaml_problem import yaml_problem
from settings import PROJECT_ROOT
from tests.test_cli import cli_env, starter

SHIPPED_TASK = PROJECT_ROOT / "experiments" / "tasks" / "bugfix-median"

# Three problems: a field pydantic's union tag would hide, a list index, a missing field.
BROKEN_SCRIPT = """\
goal: {summary: s, extra: 1}
plan:
  - {id: a, title: A, actions: [{kind: dance}]}
  - {id: 5, title: B}
"""
SCRIPT_PROBLEMS = [
    "  goal.extra: Extra inputs are not permitted",
    "  plan[0].actions[0].kind: Input should be 'tool_call', 'finish' or 'give_up'",
    "  plan[1].id: Input should be a valid string",
]


def spec_error(raw: dict[str, Any]) -> ValidationError:
    with pytest.raises(ValidationError) as raised:
        TaskSpec.model_validate(raw)
    return raised.value


def broken_spec() -> dict[str, Any]:
    raw = yaml.safe_load((SHIPPED_TASK / "task.yaml").read_text())
    raw.pop("goal")
    raw["postconditions"][0]["expect_exit_code"] = "one"
    raw["postconditions"].append({"path": "x"})
    return raw


def test_each_problem_has_its_place_as_the_file_has_it() -> None:
    raw = broken_spec()
    assert problems_of(spec_error(raw), raw) == [
        Problem(location="goal", message="Field required"),
        Problem(
            location="postconditions[0].expect_exit_code",
            message="Input should be a valid integer, unable to parse string as an integer",
        ),
        Problem(location=f"postconditions[{len(raw['postconditions']) - 1}].kind", message="Field required"),
    ]


def test_without_the_input_the_union_tag_stays_but_indexes_still_read_as_indexes() -> None:
    locations = [problem.location for problem in problems_of(spec_error(broken_spec()))]
    assert locations[1] == "postconditions[0].command_exit_code.expect_exit_code"


def test_in_one_line_joins_every_problem() -> None:
    raw = broken_spec()
    told = in_one_line(spec_error(raw), raw)
    assert "\n" not in told
    assert told.count("; ") == 2
    assert told.startswith("goal: Field required; postconditions[0].expect_exit_code: ")


def test_a_script_with_several_problems_names_each_through_the_loader() -> None:
    with pytest.raises(ScriptInvalid) as raised:
        parse_script(BROKEN_SCRIPT)
    assert str(raised.value).splitlines() == ["3 problems:", *SCRIPT_PROBLEMS]


def test_a_script_yaml_syntax_error_shows_the_line_with_a_caret() -> None:
    with pytest.raises(ScriptInvalid) as raised:
        parse_script("goal: {summary: s}\nplan:\n  - id: a\n   title: A\n")
    assert str(raised.value).splitlines() == [
        "not valid YAML at line 4, column 4: expected <block end>, but found '<block mapping start>' "
        "(while parsing a block collection from line 3, column 3)",
        "     title: A",
        "     ^",
    ]


def yaml_error(text: str) -> str:
    with pytest.raises(yaml.YAMLError) as raised:
        yaml.safe_load(text)
    return yaml_problem(raised.value, text)


def test_a_file_that_ends_inside_a_quote_shows_where_the_quote_opened() -> None:
    assert yaml_error("a: 1\r\nb: 'open\r\n").splitlines() == [
        "not valid YAML at line 2, column 4: found unexpected end of stream "
        "(while scanning a quoted scalar started here)",
        "  b: 'open",
        "     ^",
    ]


def test_a_tab_stays_a_tab_under_the_line_so_the_caret_lines_up() -> None:
    told = yaml_error("k: 'a\tb': c\n").splitlines()
    assert told[1:] == ["  k: 'a\tb': c", "       \t  ^"]


def test_a_control_character_is_placed_and_not_printed() -> None:
    assert yaml_error("a: 1\nb: x\x07\n").splitlines() == [
        "not valid YAML at line 2, column 5: unacceptable character #x0007: special characters are not allowed",
        "  b: x?",
        "      ^",
    ]


def broken_task(tmp_path: Path) -> Path:
    task_dir = tmp_path / "broken"
    shutil.copytree(SHIPPED_TASK, task_dir)
    return task_dir


def run_error_lines(task_dir: Path, tmp_path: Path) -> list[str]:
    data = tmp_path / "data"
    result = starter("run", "--runtime", "baseline", "--task", str(task_dir), env=cli_env(AGENT_LAB_DATA=str(data)))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert not data.exists(), "nothing started"
    return result.stderr.splitlines()


def test_the_cli_names_every_problem_of_a_task(tmp_path: Path) -> None:
    task_dir = broken_task(tmp_path)
    (task_dir / "task.yaml").write_text(yaml.safe_dump(broken_spec()))
    assert run_error_lines(task_dir, tmp_path) == [
        f"error: {task_dir / 'task.yaml'}: 3 problems:",
        "  goal: Field required",
        "  postconditions[0].expect_exit_code: Input should be a valid integer, unable to parse string as an integer",
        "  postconditions[3].kind: Field required",
    ]


def test_the_cli_names_every_problem_of_a_script(tmp_path: Path) -> None:
    task_dir = broken_task(tmp_path)
    (task_dir / "script.yaml").write_text(BROKEN_SCRIPT)
    assert run_error_lines(task_dir, tmp_path) == [f"error: {task_dir / 'script.yaml'}: 3 problems:", *SCRIPT_PROBLEMS]
