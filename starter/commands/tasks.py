"""`python -m starter tasks`: the benchmark tasks, one a line, id first."""

from __future__ import annotations

import argparse

from lab.runs.catalog import list_tasks


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    tasks = commands.add_parser("tasks", help="list the benchmark tasks, one per line, id first")
    tasks.set_defaults(handler=_tasks)


def _tasks(args: argparse.Namespace) -> int:
    for line in task_lines():
        print(line)
    return 0


def task_lines() -> list[str]:
    """One line per task of the catalog: its id, its title and its tags."""
    lines: list[str] = []
    for task in list_tasks():
        tags = f"  [{', '.join(task.spec.tags)}]" if task.spec.tags else ""
        lines.append(f"{task.spec.id}\t{task.spec.title}{tags}")
    return lines
