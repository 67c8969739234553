"""Parallel subtasks (RunRequest.parallel_subtasks): independent subtasks run at once as child
workflows, each in its own git worktree with its own budget; their work merges back in
dependency order; a child out of budget or work that does not merge sends the run back to
planning (plan v1 -> v2, recorded with the reason), and the run goes on.

The scripts here check files, not test suites: each run takes a second or two."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
import yaml
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent import checkpoints
from agent.ledger.read import read_events
from contracts import FileContains, LedgerEvent, ProviderConfig, RunBudget, RunRequest, RunResult, RunState
from contracts.errors import ScriptInvalid, StarterError
from contracts.script import parse_script
from host.build import build_worker
from lab.runs.fork import fork_request
from starter.render import plan_line
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from tests.test_cli import assert_one_line_error, starter
from workflows.outcome import run_result

pytestmark = pytest.mark.timeout(120)


def writes(task_id: str, path: str, text: str, *, depends_on: tuple[str, ...] = (), reads: bool = False, **extra: Any):
    """A scripted task that (after reading README, if `reads`) writes `text` into `path`."""
    actions = [{"tool": "read_file", "arguments": {"path": "README"}}] if reads else []
    actions.append({"tool": "write_file", "arguments": {"path": path, "content": text + "\n"}})
    return {
        "id": task_id,
        "title": f"write {path}",
        "depends_on": list(depends_on),
        "postconditions": [{"kind": "file_contains", "path": path, "text": text}],
        "actions": actions,
        **extra,
    }


def parallel_request(
    scratch: Path, plan: list[dict], replan: list[dict] | None = None, budget: RunBudget | None = None
) -> RunRequest:
    fixture = scratch / "fixture"
    fixture.mkdir()
    (fixture / "README").write_text("parts\n")
    script = {"goal": {"summary": "parts"}, "plan": plan, **({"replan": replan} if replan else {})}
    (scratch / "script.yaml").write_text(yaml.safe_dump(script))
    written = [task["postconditions"][0] for task in [*plan, *(replan or [])]]
    return RunRequest(
        run_id=f"parallel-{uuid.uuid4().hex[:8]}",
        runtime="durable",
        task_id="parts",
        goal="Write the parts.",
        fixture_dir=str(fixture),
        acceptance=[FileContains(path=done["path"], text=done["text"]) for done in written[-1:]],
        provider=ProviderConfig(script_path=str(scratch / "script.yaml")),
        budget=budget or RunBudget(),
        parallel_subtasks=True,
    )


async def run(client: Client, task_queue: str, request: RunRequest, **worker: Any) -> RunResult:
    async with build_worker(client, task_queue, **worker):
        return await execute_run(client, request, task_queue)


async def child_result(client: Client, child_id: str) -> RunResult:
    return await run_result(client.get_workflow_handle(child_id, result_type=RunResult))


def ledger(run_id: str) -> list[LedgerEvent]:
    return read_events(lab_deps().ledgers.path(run_id))


def of_type(events: list[LedgerEvent], kind: str) -> list[LedgerEvent]:
    return [event for event in events if event.type == kind]


async def test_independent_tasks_run_at_once_and_merge_in_dependency_order(
    client: Client, task_queue: str, tmp_path: Path, worker_options: dict[str, object]
) -> None:
    plan = [
        writes("a", "a.txt", "alpha", reads=True),
        writes("b", "b.txt", "beta", reads=True),
        writes("c", "c.txt", "gamma", depends_on=("a", "b")),
    ]
    request = parallel_request(tmp_path, plan)
    result = await run(client, task_queue, request, **worker_options)
    assert result.outcome == RunState.COMPLETED, result.reason

    # Both children of the first wave had started before either ended: they ran at once.
    events = [event async for event in client.get_workflow_handle(request.run_id).fetch_history_events()]
    kinds = [(event.event_type, _child_id(event)) for event in events]
    started = [i for i, (kind, _) in enumerate(kinds) if kind == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED]
    ended = [i for i, (kind, _) in enumerate(kinds) if kind == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED]
    ids = [kinds[i][1] for i in started]
    assert ids == [f"{request.run_id}.v1.a", f"{request.run_id}.v1.b", f"{request.run_id}.v1.c"]
    assert started[1] < ended[0], "the second child started only after the first ended"

    # Each child worked in a worktree of its own, within its own budget and ledger.
    children = {task: await child_result(client, f"{request.run_id}.v1.{task}") for task in "abc"}
    assert len({child.workspace for child in children.values()} | {result.workspace}) == 4
    assert [len(child.steps) for child in children.values()] == [2, 2, 1]
    assert of_type(ledger(f"{request.run_id}.v1.a"), "run_started")[0].payload["parent"] == request.run_id
    # The parent's workspace has every part, merged in the plan's (dependency) order.
    workspace = Path(result.workspace)
    assert [(workspace / name).read_text() for name in ("a.txt", "b.txt", "c.txt")] == ["alpha\n", "beta\n", "gamma\n"]
    merges = [
        subject for _, subject in checkpoints.history(lab_deps().checkpoints, workspace) if subject.startswith("merge")
    ]
    assert [subject.split()[2] for subject in reversed(merges)] == ["a", "b", "c"]
    assert [event.payload["task"] for event in of_type(ledger(request.run_id), "subtask_finished")] == ["a", "b", "c"]
    # The run's steps and usage are its children's.
    assert len(result.steps) == 5 and result.usage.model_calls == 2 + 5
    # The result says what each subtask waited for, and the end line shows it: not a chain.
    assert result.plan_depends_on == {"a": [], "b": [], "c": ["a", "b"]}
    assert plan_line(result.plan, result.plan_depends_on) == "a, b, c (after a, b)"


async def test_a_subtask_out_of_its_budget_ends_the_run_when_no_revision_is_left(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    plan = [writes("a", "a.txt", "alpha", reads=True, max_steps=1), writes("b", "b.txt", "beta")]
    request = parallel_request(tmp_path, plan, budget=RunBudget(max_plan_revisions=0))
    result = await run(client, task_queue, request)
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert "subtask a ended BUDGET_EXHAUSTED" in result.reason and "no revision left" in result.reason
    child = await child_result(client, f"{request.run_id}.v1.a")
    assert child.outcome == RunState.BUDGET_EXHAUSTED and len(child.steps) == 1
    assert child.reason.startswith("the subtask's budget of 1 step is spent")
    # The other child's work was good: it is merged all the same.
    assert [event.payload["task"] for event in of_type(ledger(request.run_id), "subtask_finished")] == ["a", "b"]
    assert (Path(result.workspace) / "b.txt").read_text() == "beta\n"
    assert not (Path(result.workspace) / "a.txt").exists()


async def test_a_subtask_out_of_its_budget_revises_the_plan_and_the_run_completes(
    client: Client, task_queue: str, tmp_path: Path, worker_options: dict[str, object]
) -> None:
    plan = [writes("a", "a.txt", "alpha", reads=True, max_steps=1), writes("b", "b.txt", "beta")]
    replan = [writes("a-again", "a.txt", "alpha", reads=True, max_steps=3)]
    request = parallel_request(tmp_path, plan, replan)
    result = await run(client, task_queue, request, **worker_options)
    assert result.outcome == RunState.COMPLETED, result.reason

    events = ledger(request.run_id)
    [revised] = of_type(events, "plan_revised")
    assert (revised.payload["from_version"], revised.payload["to_version"]) == (1, 2)
    assert "subtask a ended BUDGET_EXHAUSTED: the subtask's budget of 1 step is spent" in str(revised.payload["reason"])
    assert revised.payload["done"] == ["b"]
    # Revised after the first plan's children ended and before the second plan's started.
    finished = [(event.payload["task"], event.payload["outcome"]) for event in of_type(events, "subtask_finished")]
    assert finished == [("a", "BUDGET_EXHAUSTED"), ("b", "COMPLETED"), ("a-again", "COMPLETED")]
    assert events.index(revised) == events.index(of_type(events, "subtask_finished")[-1]) - 1
    again = await child_result(client, f"{request.run_id}.v2.a-again")
    assert again.outcome == RunState.COMPLETED and len(again.steps) == 2
    assert (Path(result.workspace) / "a.txt").read_text() == "alpha\n"
    assert result.plan == ["a-again"]


async def test_work_that_does_not_merge_is_fed_back_to_planning(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    plan = [writes("a", "shared.txt", "from a"), writes("b", "shared.txt", "from b")]
    replan = [writes("reconcile", "shared.txt", "from a and b")]
    request = parallel_request(tmp_path, plan, replan)
    result = await run(client, task_queue, request)
    assert result.outcome == RunState.COMPLETED, result.reason

    events = ledger(request.run_id)
    [conflict] = of_type(events, "merge_conflict")
    assert conflict.event_id.endswith("plan-v1/b/merge_conflict")
    assert "conflicts in shared.txt" in str(conflict.payload["reason"])
    [revised] = of_type(events, "plan_revised")
    assert "task b's work does not merge" in str(revised.payload["reason"])
    assert revised.payload["done"] == ["a"]
    assert (Path(result.workspace) / "shared.txt").read_text() == "from a and b\n"


def _child_id(event: Any) -> str | None:
    if event.event_type == EventType.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED:
        return event.child_workflow_execution_started_event_attributes.workflow_execution.workflow_id
    return None


def test_a_script_revised_plan_may_not_reuse_the_first_plans_task_ids() -> None:
    script = {"goal": {"summary": "s"}, "plan": [writes("a", "a", "x")], "replan": [writes("a", "a", "y")]}
    with pytest.raises(ScriptInvalid, match="task ids a are the first plan's already"):
        parse_script(yaml.safe_dump(script))


def test_parallel_subtasks_are_refused_for_the_baseline_in_one_line() -> None:
    result = starter("run", "--runtime", "baseline", "--parallel-subtasks", "--task", "independent-parts")
    assert_one_line_error(result, "--parallel-subtasks", "--runtime durable")


async def test_a_run_of_parallel_subtasks_is_not_forked(client: Client, task_queue: str, tmp_path: Path) -> None:
    """Its steps are its children's: `starter fork` says so in one line instead."""
    request = parallel_request(tmp_path, [writes("a", "a.txt", "alpha")])
    async with build_worker(client, task_queue):
        result = await execute_run(client, request, task_queue)
        assert result.outcome == RunState.COMPLETED, result.reason
        with pytest.raises(StarterError, match=r"ran its plan's subtasks as child runs \(--parallel-subtasks\)"):
            await fork_request(client, lab_deps(), request.run_id, 1, None)
