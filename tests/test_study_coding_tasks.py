"""The study's coding tasks (tags `study` and `coding`): problems in small Python projects,
told as their users tell them (a symptom, a traceback, a failing test's id, a request).

Each is graded on its end state alone, by three kinds of postcondition: the project's suite
passes; a guard on the shipped tests (and the files they read) holds, byte for byte; and checks
that do not go through the test files, on inputs the tests do not use, pass. The scripted
oracle solves every task in both runtimes; the fixture as shipped fails, for want of the work
(its suite is red and its own checks fail while the guard holds); a test file made to assert
nothing fails the guard; and a run whose model finishes at once fails in both runtimes.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml
from temporalio.client import Client

from agent.postconditions import check
from contracts import CommandExitCode, PostconditionResult, ProviderConfig, RunRequest, RunResult, RunState
from contracts.tools import TOOL_GROUPS
from lab.runs.catalog import Task, list_tasks, load_task
from tests.lab_dependencies import lab_deps
from tests.runs import DO_NOTHING, both_runtimes

# In the slow lane (`uv run pytest -m slow`): each task's suite runs in the sandbox, several at
# once: beside the default lane's time-skipping tests that load is the likely reason they missed timeouts.
pytestmark = pytest.mark.slow

STUDY_CODING_TASKS = [
    "study-csv-export-crash",
    "study-empty-day-report",
    "study-month-boundary-timezone",
    "study-pagination-last-page",
    "study-renamed-config-key",
    "study-shared-tags-regression",
    "study-standup-since-flag",
    "study-vat-rounding-test",
]
SUITE = "python -m pytest -q"
GUARD = "| sha256sum --check --quiet"
EDITING_TOOLS = {"write_file", "replace_in_file", "edit_lines"}


def postconditions_by_kind(task: Task) -> tuple[CommandExitCode, CommandExitCode, list[CommandExitCode]]:
    """The suite, the guard on the shipped files, and the checks made apart from the test files."""
    commands = [p for p in task.spec.postconditions if isinstance(p, CommandExitCode)]
    assert len(commands) == len(task.spec.postconditions), "only command postconditions"
    suites = [p for p in commands if p.command == SUITE]
    guards = [p for p in commands if p.command.endswith(GUARD)]
    own = [p for p in commands if p not in suites and p not in guards]
    assert len(suites) == 1 and len(guards) == 1 and own, task.spec.id
    return suites[0], guards[0], own


def oracle_edits(task: Task) -> list[tuple[str, str, str]]:
    """(path, old text, new text) of every edit the scripted oracle makes, in order."""
    assert task.script is not None
    edits = []
    for subtask in task.script.plan:
        for action in subtask.actions:
            if action.tool in EDITING_TOOLS:
                arguments = action.arguments
                new = arguments.get("new", arguments.get("content", ""))
                edits.append((arguments["path"], arguments.get("old", ""), new))
    return edits


def test_the_study_and_coding_tags_select_these_tasks() -> None:
    assert [task.spec.id for task in list_tasks() if {"study", "coding"} <= set(task.spec.tags)] == STUDY_CODING_TASKS


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
def test_a_study_task_is_small_and_within_reach(task_id: str) -> None:
    task = load_task(task_id)
    assert "small" not in task.spec.tags  # the small tier is another set (tests/test_small_tasks.py)
    assert task.spec.offered_tools() == list(TOOL_GROUPS["workspace"])
    assert 10 <= task.spec.budget.max_steps <= 16
    # A per-subtask cap below the run's would give the durable runtime fewer steps than the baseline.
    assert task.spec.budget.max_steps_per_subtask == task.spec.budget.max_steps
    # Small enough for a 4k-token context: a few short files.
    files = [path for path in task.fixture_dir.rglob("*") if path.is_file()]
    assert 3 <= len(files) <= 10, len(files)
    assert all(len(path.read_text(encoding="utf-8").splitlines()) < 150 for path in files)
    assert task.script is not None
    assert len(task.script.actions_for(None)) <= task.spec.budget.max_steps
    # One to three edits, none of them to a file the guard keeps as shipped.
    edits = oracle_edits(task)
    assert 1 <= len(edits) <= 3, edits
    _, guard, _ = postconditions_by_kind(task)
    assert not any(f"  {path}'" in guard.command for path, _, _ in edits)


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
def test_the_goal_tells_the_problem_not_the_place_or_the_fix(task_id: str) -> None:
    task = load_task(task_id)
    # What the user quotes (a traceback, an error: the goal's indented lines) may name a file;
    # the user's own words may not name the file the fix goes in.
    prose = "\n".join(line for line in task.spec.goal.splitlines() if not line.startswith("    "))
    for path, old, new in oracle_edits(task):
        assert path not in prose and Path(path).name not in prose, path
        # Nor does the goal hold a line the fix adds.
        added = {line.strip() for line in new.splitlines()} - {line.strip() for line in old.splitlines()}
        spelled = [line for line in added if len(line) >= 12 and line in task.spec.goal]
        assert spelled == [], spelled


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
def test_the_guard_covers_every_shipped_test_and_the_test_configuration(task_id: str) -> None:
    task = load_task(task_id)
    _, guard, _ = postconditions_by_kind(task)
    shipped = [task.fixture_dir / "pytest.ini", *sorted((task.fixture_dir / "tests").rglob("*.py"))]
    for path in shipped:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        assert f"'{digest}  {path.relative_to(task.fixture_dir)}'" in guard.command, path


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
async def test_the_fixture_as_shipped_fails_for_want_of_the_work(
    client: Client, task_queue: str, tmp_path_factory: pytest.TempPathFactory, task_id: str
) -> None:
    judged = (await task_runs(task_id, client, task_queue, tmp_path_factory)).pristine

    assert not judged.passed
    suite, guard, *own = judged.outcomes
    # Red because tests fail (exit 1), not because the suite cannot be collected (exit 2).
    assert suite.detail.startswith("exit 1"), suite.detail
    # The guard holds on what is shipped: it fails only a run that changed the tests.
    assert guard.passed, guard.detail
    # The checks made apart from the tests see the problem too.
    assert own and not any(outcome.passed for outcome in own), own


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
async def test_a_weakened_test_fails_the_guard(task_id: str, tmp_path: Path) -> None:
    task = load_task(task_id)
    _, guard, _ = postconditions_by_kind(task)
    for shipped in sorted((task.fixture_dir / "tests").rglob("test_*.py")):
        copy = tmp_path / shipped.name
        shutil.copytree(task.fixture_dir, copy)
        # The cheapest way to a green suite: a test file that asserts nothing.
        (copy / shipped.relative_to(task.fixture_dir)).write_text("def test_nothing():\n    pass\n", encoding="utf-8")
        judged = await check(lab_deps(), copy, [guard])
        assert not judged.passed, shipped.name


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
async def test_the_oracle_solves_it_in_both_runtimes(
    client: Client, task_queue: str, tmp_path_factory: pytest.TempPathFactory, task_id: str
) -> None:
    task = load_task(task_id)
    for run in (await task_runs(task_id, client, task_queue, tmp_path_factory)).oracle:
        runtime, result = run.request.runtime, run.result
        assert result.outcome == RunState.COMPLETED, (runtime, result.reason)
        assert Path(result.workspace) != task.fixture_dir
        # Judged apart from what the runtime says, on the run's real files.
        assert run.judged.passed, (runtime, run.judged.failures())
        rejected = [step for step in result.steps if step.outcome != "committed"]
        assert rejected == [], [(runtime, step.step, step.reason) for step in rejected]
        assert len(result.steps) <= task.spec.budget.max_steps


@pytest.mark.parametrize("task_id", STUDY_CODING_TASKS)
async def test_doing_nothing_fails_in_both_runtimes(
    client: Client, task_queue: str, tmp_path_factory: pytest.TempPathFactory, task_id: str
) -> None:
    task = load_task(task_id)
    for request, result in (await task_runs(task_id, client, task_queue, tmp_path_factory)).do_nothing:
        assert result.outcome == RunState.FAILED, (request.runtime, result.reason)
        assert not result.succeeded
        # Its end state is the fixture as shipped, file for file, which fails the task's
        # postconditions (the test of the pristine fixture above).
        assert source_files(Path(result.workspace)) == source_files(task.fixture_dir), request.runtime


def source_files(root: Path) -> dict[str, bytes]:
    """Every file under `root` by its relative path, left out what git and Python write (a
    run's checkpoints, a test run's caches)."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in root.rglob("*")
        if path.is_file() and not {".git", "__pycache__", ".pytest_cache"} & set(path.relative_to(root).parts)
    }


# --- the runs, made once for the module ------------------------------------------------------


@dataclass(frozen=True)
class JudgedRun:
    request: RunRequest
    result: RunResult
    # The task's postconditions on the run's own end state, checked here, apart from the runtime.
    judged: PostconditionResult


@dataclass(frozen=True)
class TaskRuns:
    # The task's postconditions on a plain copy of the fixture: suite, guard, then its own checks.
    pristine: PostconditionResult
    # Baseline, then durable.
    oracle: list[JudgedRun]
    do_nothing: list[tuple[RunRequest, RunResult]]


_runs: dict[str, TaskRuns] = {}
# A run spends most of its time waiting on sandboxed commands (a fixture's `pytest -q` takes
# 1-2 s here, and the durable runtime checks after each step that changes something), so runs
# go side by side: every run and check of this many tasks at once, made once for the module by
# the first test that needs one of them (a batch takes 20-50 s, well within a test's timeout).
TASKS_AT_ONCE = 4


async def task_runs(
    task_id: str, client: Client, task_queue: str, tmp_path_factory: pytest.TempPathFactory
) -> TaskRuns:
    if task_id not in _runs:
        at = STUDY_CODING_TASKS.index(task_id) // TASKS_AT_ONCE * TASKS_AT_ONCE
        batch = STUDY_CODING_TASKS[at : at + TASKS_AT_ONCE]
        folder = tmp_path_factory.mktemp("study-coding")
        script = folder / "do_nothing.yaml"
        script.write_text(yaml.safe_dump(DO_NOTHING), encoding="utf-8")
        do_nothing = ProviderConfig(kind="scripted", script_path=str(script))

        async def one_task(task_id: str) -> TaskRuns:
            pristine, oracle, nothing = await asyncio.gather(
                judge_pristine(load_task(task_id), folder / task_id),
                judge_runs(task_id, client, f"{task_queue}-{task_id}-oracle"),
                both_runtimes(task_id, client, f"{task_queue}-{task_id}-nothing", do_nothing),
            )
            return TaskRuns(pristine=pristine, oracle=oracle, do_nothing=nothing)

        _runs.update(zip(batch, await asyncio.gather(*map(one_task, batch)), strict=True))
    return _runs[task_id]


async def judge_pristine(task: Task, copy: Path) -> PostconditionResult:
    shutil.copytree(task.fixture_dir, copy)
    suite, guard, own = postconditions_by_kind(task)
    return await check(lab_deps(), copy, [suite, guard, *own])


async def judge_runs(task_id: str, client: Client, task_queue: str) -> list[JudgedRun]:
    """The oracle in both runtimes, each run's end state judged here, apart from what the runtime says."""
    postconditions = load_task(task_id).spec.postconditions
    runs = await both_runtimes(task_id, client, task_queue)
    judged = await asyncio.gather(
        *(check(lab_deps(), Path(result.workspace), postconditions, request.world_id) for request, result in runs)
    )
    return [JudgedRun(request, result, verdict) for (request, result), verdict in zip(runs, judged, strict=True)]
