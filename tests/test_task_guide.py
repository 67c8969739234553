"""docs/tasks.md, the guide to writing a task, is true: its example task (docs/examples/
my-first-task) loads through the catalog and passes in both runtimes with its scripted oracle;
the files the guide shows are the example's files, byte for byte; every postcondition it shows
parses; and the error it shows for a bad file is the one the loader gives.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path
from typing import get_args

import pytest
import yaml
from pydantic import TypeAdapter
from temporalio.client import Client

from agent.postconditions import check
from baseline import BaselineLoop
from contracts import RunRequest, RunResult, RunState
from contracts.errors import TaskError
from contracts.postconditions import Postcondition
from host.build import build_worker
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

GUIDE = PROJECT_ROOT / "docs" / "tasks.md"
EXAMPLE = PROJECT_ROOT / "docs" / "examples" / "my-first-task"
# A fenced block, with the HTML comment that may precede it ("<!-- example: PATH -->").
BLOCK = re.compile(r"(?:<!-- example: (?P<file>\S+) -->\n)?```(?P<lang>\w*)\n(?P<body>.*?)```", re.DOTALL)
POSTCONDITIONS = TypeAdapter(list[Postcondition])


def blocks(lang: str) -> list[tuple[str | None, str]]:
    """(the example file it claims to be, text) of every block of the guide in `lang`."""
    text = GUIDE.read_text(encoding="utf-8")
    return [(found["file"], found["body"]) for found in BLOCK.finditer(text) if found["lang"] == lang]


def test_the_yaml_blocks_marked_as_files_are_the_example_files() -> None:
    shown = {name: body for name, body in blocks("yaml") if name is not None}
    assert sorted(shown) == ["docs/examples/my-first-task/script.yaml", "docs/examples/my-first-task/task.yaml"]
    for name, body in shown.items():
        assert body == (PROJECT_ROOT / name).read_text(encoding="utf-8"), f"docs/tasks.md shows {name} otherwise"


def test_the_fixture_files_shown_are_the_example_fixture() -> None:
    shown = [body for _, body in blocks("python")]
    assert len(shown) == 2
    for body in shown:
        heading, _, content = body.partition("\n")
        path = EXAMPLE / heading.removeprefix("# ")
        assert path.is_file(), heading
        assert content == path.read_text(encoding="utf-8"), f"docs/tasks.md shows {heading} otherwise"


def test_every_other_yaml_block_is_a_postcondition_the_code_accepts() -> None:
    examples = [body for name, body in blocks("yaml") if name is None]
    kinds = {condition.kind for body in examples for condition in POSTCONDITIONS.validate_python(yaml.safe_load(body))}
    # Each kind the code accepts is shown, and nothing else: a new kind fails here until documented.
    accepted = {member.model_fields["kind"].default for member in get_args(get_args(Postcondition)[0])}
    assert kinds == accepted
    text = GUIDE.read_text(encoding="utf-8")
    assert all(f"**`{kind}`**" in text for kind in accepted)


def test_the_bad_file_shown_gives_the_error_shown(tmp_path: Path) -> None:
    bad = tmp_path / "my-first-task"
    shutil.copytree(EXAMPLE, bad)
    spec = bad / "task.yaml"
    spec.write_text(spec.read_text(encoding="utf-8").replace("kind: file_not_contains", "kind: file_lacks"), "utf-8")
    shown = next(line for _, body in blocks("") for line in body.splitlines() if "file_lacks" in line)
    with pytest.raises(TaskError) as raised:
        load_task(str(bad))
    assert shown.partition("task.yaml: ")[2] in str(raised.value)


async def test_the_pristine_fixture_fails_its_postconditions(tmp_path: Path) -> None:
    task = load_task(str(EXAMPLE))
    pristine = tmp_path / "pristine"
    shutil.copytree(task.fixture_dir, pristine)
    judged = await check(lab_deps(), pristine, task.spec.postconditions)
    assert [outcome.passed for outcome in judged.outcomes] == [False, False, False, True]


async def run_durable(client: Client, task_queue: str, request: RunRequest) -> RunResult:
    async with build_worker(client, task_queue):
        return await execute_run(client, request, task_queue)


async def test_the_example_passes_in_both_runtimes(client: Client, task_queue: str) -> None:
    task = load_task(str(EXAMPLE))
    assert task.spec.id == "my-first-task" and task.script is not None
    baseline, durable = build_request(task, "baseline"), build_request(task, "durable")
    results = await asyncio.gather(
        BaselineLoop(lab_deps(), retry_delay_s=0).run(baseline), run_durable(client, task_queue, durable)
    )
    for request, result in zip((baseline, durable), results, strict=True):
        assert result.outcome == RunState.COMPLETED, (request.runtime, result.reason)
        judged = await check(lab_deps(), Path(result.workspace), task.spec.postconditions)
        assert judged.passed, (request.runtime, judged.failures())
        assert [step.outcome for step in result.steps if step.outcome != "committed"] == []
    assert [step.subtask_id for step in results[1].steps] == ["fix-greeting", "fix-greeting", "run-tests"]
