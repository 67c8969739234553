"""The benchmark tasks: `experiments/tasks/ID/task.yaml`, its fixture and its script."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from contracts import TaskSpec
from contracts.errors import ScriptInvalid, TaskError
from contracts.problems import render
from contracts.script import Script, parse_script
from contracts.yaml_problem import yaml_problem
from settings import PROJECT_ROOT

TASKS_DIR = PROJECT_ROOT / "experiments" / "tasks"
SPEC_FILE = "task.yaml"


@dataclass(frozen=True)
class Task:
    spec: TaskSpec
    directory: Path
    # The scripted provider's script, checked at load; None for a task with none.
    script: Script | None = None

    @property
    def fixture_dir(self) -> Path:
        return self.directory / self.spec.fixture

    @property
    def script_path(self) -> Path:
        return self.directory / self.spec.script

    def require_script(self) -> Path:
        """The script's path, for the scripted provider; TaskError when the task has none."""
        if self.script is None:
            raise TaskError(
                f"task {self.spec.id!r} has no script ({self.script_path} not found): the scripted provider "
                "only follows a script; run it with a real model (--provider openai or --provider local)"
            )
        return self.script_path


def list_tasks(tasks_dir: Path = TASKS_DIR) -> list[Task]:
    return [load_task_dir(spec.parent) for spec in sorted(tasks_dir.glob(f"*/{SPEC_FILE}"))]


def load_task(ref: str, tasks_dir: Path = TASKS_DIR) -> Task:
    """A task by id (a directory under `tasks_dir`) or by the path of a task directory."""
    candidate = Path(ref)
    if (candidate / SPEC_FILE).is_file():
        return load_task_dir(candidate)
    if (tasks_dir / ref / SPEC_FILE).is_file():
        return load_task_dir(tasks_dir / ref)
    known = ", ".join(task.spec.id for task in list_tasks(tasks_dir)) or "none"
    raise TaskError(f"unknown task {ref!r}: not a task id ({known}) nor a directory with a {SPEC_FILE}")


def load_task_dir(directory: Path) -> Task:
    directory = directory.resolve()
    spec_path = directory / SPEC_FILE
    try:
        text = spec_path.read_text(encoding="utf-8")
        raw = yaml.safe_load(text)
    except OSError as error:
        raise TaskError(f"{spec_path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise TaskError(f"{spec_path}: not UTF-8 text") from None
    except yaml.YAMLError as error:
        raise TaskError(f"{spec_path}: {yaml_problem(error, text)}") from None
    try:
        spec = TaskSpec.model_validate(raw)
    except ValidationError as error:
        raise TaskError(f"{spec_path}: {render(error, raw)}") from None
    task = Task(spec=spec, directory=directory)
    if not task.fixture_dir.is_dir():
        raise TaskError(f"{spec_path}: fixture directory {spec.fixture!r} not found")
    return dataclasses.replace(task, script=_script(task, named="script" in spec.model_fields_set))


def _script(task: Task, named: bool) -> Script | None:
    """The task's script, validated now: a broken one is bad input, told before any run
    starts. Absent is fine unless the spec names it."""
    path = task.script_path
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if named:
            raise TaskError(f"{task.directory / SPEC_FILE}: script {task.spec.script!r} not found") from None
        return None
    except OSError as error:
        raise TaskError(f"{path}: cannot read: {error.strerror}") from None
    except UnicodeDecodeError:
        raise TaskError(f"{path}: not UTF-8 text") from None
    try:
        return parse_script(text)
    except ScriptInvalid as error:
        raise TaskError(f"{path}: {error}") from None
