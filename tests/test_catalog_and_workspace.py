"""The task catalog (task.yaml on disk) and per-run workspaces."""

from __future__ import annotations

import hashlib
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.workspace import WorkspaceActivities
from agent.workspace import workspace_path
from contracts import CommandExitCode, FileContains, PrepareWorkspaceInput
from lab.runs.catalog import TASKS_DIR, TaskError, list_tasks, load_task
from tests.lab_dependencies import lab_deps
from tests.shipped_tasks import SHIPPED_TASKS

# --- catalog -------------------------------------------------------------------------------


def test_list_tasks_returns_shipped_tasks_sorted() -> None:
    assert [task.spec.id for task in list_tasks()] == SHIPPED_TASKS


def test_load_task_by_id() -> None:
    task = load_task("rename-refactor")
    assert task.spec.id == "rename-refactor"
    assert task.directory == TASKS_DIR / "rename-refactor"
    assert task.fixture_dir == TASKS_DIR / "rename-refactor" / "repo"
    assert task.script_path.is_file()
    assert task.spec.budget.max_steps == 24
    assert task.spec.postconditions[1] == CommandExitCode(
        command="grep -rn --include='*.py' calc_total .", expect_exit_code=1
    )


def test_load_task_by_directory_path() -> None:
    task = load_task(str(TASKS_DIR / "bugfix-median"))
    assert task.spec.id == "bugfix-median"
    assert isinstance(task.spec.postconditions[1], FileContains)


def test_unknown_task_id_names_the_known_ids() -> None:
    with pytest.raises(TaskError) as raised:
        load_task("no-such-task")
    message = str(raised.value)
    assert "no-such-task" in message
    assert "bugfix-median" in message and "rename-refactor" in message


@pytest.fixture
def task_copy(tmp_path: Path) -> Path:
    """A private copy of a shipped task, to break in various ways."""
    tasks_dir = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR / "rename-refactor", tasks_dir / "rename-refactor")
    return tasks_dir / "rename-refactor"


def edit_spec(task_dir: Path, change: Callable[[dict[str, Any]], None]) -> None:
    spec_path = task_dir / "task.yaml"
    raw = yaml.safe_load(spec_path.read_text())
    change(raw)
    spec_path.write_text(yaml.safe_dump(raw))


def load_error(task_dir: Path, lines: int = 1) -> str:
    with pytest.raises(TaskError) as raised:
        load_task(str(task_dir))
    message = str(raised.value)
    assert len(message.splitlines()) == lines, message
    assert str(task_dir / "task.yaml") in message
    return message


def test_copied_task_loads_from_its_directory(task_copy: Path) -> None:
    assert load_task("rename-refactor", tasks_dir=task_copy.parent).directory == task_copy


def test_invalid_yaml_names_the_line_and_column_and_shows_the_line(task_copy: Path) -> None:
    (task_copy / "task.yaml").write_text("id: rename-refactor\ntitle: [unclosed\ngoal: x\n")
    header, offending, caret = load_error(task_copy, lines=3).splitlines()
    assert header == (
        f"{task_copy / 'task.yaml'}: not valid YAML at line 3, column 5: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence from line 2, column 8)"
    )
    assert (offending, caret) == ("  goal: x", "      ^")


def test_missing_required_field_is_named(task_copy: Path) -> None:
    edit_spec(task_copy, lambda raw: raw.pop("goal"))
    assert ": goal: Field required" in load_error(task_copy)


def test_unknown_field_is_named(task_copy: Path) -> None:
    edit_spec(task_copy, lambda raw: raw.update(timeout=5))
    assert ": timeout: Extra inputs are not permitted" in load_error(task_copy)


def test_invalid_id_is_named(task_copy: Path) -> None:
    edit_spec(task_copy, lambda raw: raw.update(id="Not An Id"))
    assert ": id: " in load_error(task_copy)


def test_unknown_postcondition_kind_is_named(task_copy: Path) -> None:
    def change(raw: dict[str, Any]) -> None:
        raw["postconditions"][2] = {"kind": "smells_right", "path": "x"}

    edit_spec(task_copy, change)
    message = load_error(task_copy)
    assert ": postconditions[2].kind: Input should be one of 'command_exit_code', " in message
    assert message.endswith(", not 'smells_right'")


def test_bad_postcondition_field_is_named(task_copy: Path) -> None:
    edit_spec(task_copy, lambda raw: raw["postconditions"][1].update(expect_exit_code="one"))
    # The union's tag (command_exit_code) is no part of the path: the field is where the file has it.
    assert ": postconditions[1].expect_exit_code: Input should be a valid integer" in load_error(task_copy)


def test_several_problems_are_each_named_on_a_line(task_copy: Path) -> None:
    def change(raw: dict[str, Any]) -> None:
        raw.pop("goal")
        raw.pop("title")
        raw["postconditions"][0]["kind"] = "smells_right"

    edit_spec(task_copy, change)
    assert load_error(task_copy, lines=4).splitlines() == [
        f"{task_copy / 'task.yaml'}: 3 problems:",
        "  title: Field required",
        "  goal: Field required",
        "  postconditions[0].kind: Input should be one of 'command_exit_code', 'file_contains', "
        "'file_not_contains', 'service_count', not 'smells_right'",
    ]


def test_missing_fixture_directory_is_named(task_copy: Path) -> None:
    edit_spec(task_copy, lambda raw: raw.update(fixture="nowhere"))
    assert "fixture directory 'nowhere' not found" in load_error(task_copy)


def test_missing_script_is_named(task_copy: Path) -> None:
    (task_copy / "script.yaml").unlink()
    assert "script 'script.yaml' not found" in load_error(task_copy)


def test_non_utf8_spec_is_a_task_error(task_copy: Path) -> None:
    (task_copy / "task.yaml").write_bytes(b"id: rename-refactor\ntitle: caf\xe9\n")
    load_error(task_copy)


def test_list_tasks_of_a_directory_without_tasks_is_empty(tmp_path: Path) -> None:
    assert list_tasks(tmp_path) == []
    with pytest.raises(TaskError, match=r"\(none\)"):
        load_task("anything", tasks_dir=tmp_path)


# --- workspaces ----------------------------------------------------------------------------


def tree_digest(root: Path) -> dict[str, str]:
    return {
        path.relative_to(root).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.fixture
def fixture_dir(tmp_path: Path) -> Path:
    """A private copy of a shipped fixture, plus the machinery a copy must leave out."""
    path = tmp_path / "fixture"
    shutil.copytree(TASKS_DIR / "bugfix-median" / "repo", path)
    (path / "__pycache__").mkdir(exist_ok=True)
    (path / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (path / ".pytest_cache").mkdir(exist_ok=True)
    (path / "stray.pyc").write_bytes(b"\0")
    return path


def new_run_id() -> str:
    return f"test-{uuid.uuid4().hex[:12]}"


async def test_workspace_is_a_fresh_copy_under_the_data_dir(fixture_dir: Path, data_dir: Path) -> None:
    run_id = new_run_id()
    ref = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace,
        PrepareWorkspaceInput(world_id=run_id, fixture_dir=str(fixture_dir)),
    )
    workspace = Path(ref.path)
    assert workspace == workspace_path(lab_deps(), run_id) == data_dir.resolve() / "workspaces" / run_id
    copied = tree_digest(workspace)
    assert copied["textstats/stats.py"] == tree_digest(fixture_dir)["textstats/stats.py"]
    assert not [name for name in copied if "__pycache__" in name or ".pytest_cache" in name or name.endswith(".pyc")]


async def test_each_run_gets_its_own_workspace(fixture_dir: Path) -> None:
    first = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace,
        PrepareWorkspaceInput(world_id=new_run_id(), fixture_dir=str(fixture_dir)),
    )
    second = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace,
        PrepareWorkspaceInput(world_id=new_run_id(), fixture_dir=str(fixture_dir)),
    )
    assert first.path != second.path
    (Path(first.path) / "textstats" / "stats.py").write_text("changed\n")
    assert (Path(second.path) / "textstats" / "stats.py").read_text() != "changed\n"


async def test_writing_in_workspace_never_touches_the_fixture(fixture_dir: Path) -> None:
    before = tree_digest(fixture_dir)
    ref = await ActivityEnvironment().run(
        WorkspaceActivities(lab_deps()).prepare_workspace,
        PrepareWorkspaceInput(world_id=new_run_id(), fixture_dir=str(fixture_dir)),
    )
    workspace = Path(ref.path)
    (workspace / "textstats" / "stats.py").write_text("broken\n")
    (workspace / "new.txt").write_text("new\n")
    shutil.rmtree(workspace / "tests")
    assert tree_digest(fixture_dir) == before


async def test_preparing_twice_keeps_the_workspace_and_its_changes(fixture_dir: Path) -> None:
    request = PrepareWorkspaceInput(world_id=new_run_id(), fixture_dir=str(fixture_dir))
    first = await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
    (Path(first.path) / "textstats" / "stats.py").write_text("work in progress\n")
    (Path(first.path) / "notes.txt").write_text("mine\n")
    second = await ActivityEnvironment().run(WorkspaceActivities(lab_deps()).prepare_workspace, request)
    assert second.path == first.path
    assert (Path(second.path) / "textstats" / "stats.py").read_text() == "work in progress\n"
    assert (Path(second.path) / "notes.txt").read_text() == "mine\n"
    # No half copies left behind next to it.
    assert not list(Path(first.path).parent.glob(f".{Path(first.path).name}.*"))


async def test_missing_fixture_is_non_retryable_workspace_error(tmp_path: Path) -> None:
    run_id = new_run_id()
    missing = tmp_path / "no-fixture"
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            WorkspaceActivities(lab_deps()).prepare_workspace,
            PrepareWorkspaceInput(world_id=run_id, fixture_dir=str(missing)),
        )
    assert raised.value.type == "WorkspaceError"
    assert raised.value.non_retryable
    assert str(missing) in raised.value.message
    assert not workspace_path(lab_deps(), run_id).exists()
