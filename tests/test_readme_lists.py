"""The README's lists of tasks and experiment configs are what `starter tasks` and `starter
experiment configs` print today: every task of the catalog and every shipped config, and
nothing that is not there. A task or config added, renamed or removed fails here until the
README shows the commands' new output.
"""

from __future__ import annotations

from experiments.config_loader import CONFIGS_DIR
from lab.runs.catalog import list_tasks
from settings import PROJECT_ROOT
from starter.commands.tasks import task_lines
from starter.experiment_command import config_lines

README = PROJECT_ROOT / "README.md"


def shown_output(command: str) -> list[str]:
    """The lines of the README's code block that opens with `$ COMMAND`."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"$ {command}") + 1
    end = lines.index("```", start)
    return lines[start:end]


def test_the_readme_lists_every_task_as_starter_tasks_does() -> None:
    shown = shown_output("uv run python -m starter tasks")
    assert shown == task_lines(), "README.md: paste the output of `uv run python -m starter tasks`"
    assert [line.split("\t")[0] for line in shown] == [task.spec.id for task in list_tasks()]


def test_the_readme_lists_every_config_as_experiment_configs_does() -> None:
    lines, problems = config_lines()
    assert problems == []
    shown = shown_output("uv run python -m starter experiment configs")
    assert shown == lines, "README.md: paste the output of `uv run python -m starter experiment configs`"
    named = [line.split("\t")[0] for line in shown]
    assert named == [str(path.relative_to(PROJECT_ROOT)) for path in sorted(CONFIGS_DIR.glob("*.yaml"))]
