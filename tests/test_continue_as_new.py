"""History stays small: with the server's suggestion threshold lowered, a run continues as new
several times and finishes exactly as an uninterrupted run would, its typed state carried."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from agent.ledger import read_events, verify_ledger
from agent.postconditions import check
from contracts import PlanProgress, RunRequest, RunSnapshot, RunState, SubtaskProgress, Usage
from host.build import build_worker
from host.converter import DATA_CONVERTER
from lab.invariants import RULES, check_run, fetch_generations, gather
from lab.runs.catalog import Task
from lab.runs.run_request import build_request
from tests.conftest import DEV_SERVER, FAST_DEV_SERVER_ARGS
from tests.lab_dependencies import lab_deps
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

SUGGEST_AFTER_EVENTS = 40


@pytest.fixture(scope="module")
async def small_history_env() -> AsyncIterator[WorkflowEnvironment]:
    environment = await WorkflowEnvironment.start_local(
        data_converter=DATA_CONVERTER,
        dev_server_existing_path=str(DEV_SERVER),
        dev_server_extra_args=[
            *FAST_DEV_SERVER_ARGS,
            "--dynamic-config-value",
            f"limit.historyCount.suggestContinueAsNew={SUGGEST_AFTER_EVENTS}",
        ],
    )
    yield environment
    await environment.shutdown()


async def test_a_long_run_continues_as_new_and_carries_its_state(
    small_history_env: WorkflowEnvironment, task_queue: str, rename_task: Task
) -> None:
    client = small_history_env.client
    request = build_request(rename_task, "durable")
    async with build_worker(client, task_queue):
        handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
        result = await run_result(handle)
        # The last generation's state, as its query returns it: what the first one set is there.
        last = await client.get_workflow_handle(request.run_id).query(AgentRunWorkflow.progress, 0)

    assert result.outcome == RunState.COMPLETED, result.reason
    assert result.generations >= 3
    assert last.generation == result.generations and last.state == RunState.COMPLETED
    assert last.goal_spec is not None and last.goal_spec.goal == request.goal
    assert last.plan is not None and [task.id for task in last.plan.subtasks] == result.plan
    assert last.sandbox is not None and last.sandbox == result.sandbox
    assert last.started_at is not None and last.workspace == result.workspace
    assert last.steps == result.steps
    # Every step of every generation is in the result, numbered without gaps or repeats.
    assert [s.step for s in result.steps] == list(range(1, len(result.steps) + 1))
    assert [s.subtask_id for s in result.steps][:3] == ["rename-definition"] * 3
    assert (await check(lab_deps(), Path(result.workspace), rename_task.spec.postconditions)).passed

    # Each generation kept its history under the threshold (plus the step in flight).
    runs = [run async for run in client.list_workflows(f"WorkflowId = '{request.run_id}'")]
    assert len(runs) == result.generations
    for run in runs:
        events = [e async for e in client.get_workflow_handle(request.run_id, run_id=run.run_id).fetch_history_events()]
        assert len(events) < SUGGEST_AFTER_EVENTS * 2

    # One ledger across generations, one unbroken chain.
    report = verify_ledger(lab_deps().ledgers.path(request.run_id))
    assert report.ok
    commits = [e.step for e in read_events(lab_deps().ledgers.path(request.run_id)) if e.type == "commit"]
    assert commits == [s.step for s in result.steps if s.outcome == "committed"]


async def test_the_invariants_read_every_generation_as_one_run(
    small_history_env: WorkflowEnvironment, task_queue: str, rename_task: Task
) -> None:
    """`starter check` fetches a run that continued as new generation by generation and reads
    them as one story, every invariant holding; each generation alone (what one history file
    holds) passes too: what it cannot see, such as a step closed in the next generation, it
    does not judge."""
    client = small_history_env.client
    request = build_request(rename_task, "durable")
    async with build_worker(client, task_queue):
        handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
        result = await run_result(handle)
    generations = await fetch_generations(client, request.run_id)
    assert generations is not None and len(generations) == result.generations >= 3

    ledger = lab_deps().ledgers.path(request.run_id)
    whole = gather(request.run_id, ledger, generations, lab_deps().artifacts)
    assert whole.history is not None
    assert [(s.step, s.outcome) for s in whole.history.steps] == [(s.step, "commit") for s in result.steps]
    assert [outcome.status for outcome in check_run(whole).outcomes] == ["pass"] * len(RULES)
    for number, generation in enumerate(generations, 1):
        alone = check_run(gather(request.run_id, ledger, [generation], lab_deps().artifacts))
        assert alone.clean, (number, [str(found) for found in alone.violations])


def test_a_generation_carried_in_the_flat_form_still_reads() -> None:
    """A run that continued as new before the task-level fields were grouped carries them side
    by side (tests/histories/retired/continued.json holds such an input): they read into the
    task in progress and the subtasks' progress."""
    history = json.loads((Path(__file__).parent / "histories" / "retired" / "continued.json").read_text())
    [continued] = [e for e in history["events"] if e["eventType"] == "EVENT_TYPE_WORKFLOW_EXECUTION_CONTINUED_AS_NEW"]
    payload = continued["workflowExecutionContinuedAsNewEventAttributes"]["input"]["payloads"][0]
    request = json.loads(base64.b64decode(payload["data"]))
    flat = request["resume"]
    assert {"turns", "task_usage", "task_started_at"} <= flat.keys()
    carried = RunRequest.model_validate(request).resume
    assert carried is not None and carried.generation == 2
    assert [turn.step for turn in carried.subtask.turns] == [1] and carried.subtask.index == 0
    assert carried.subtask.usage == Usage.model_validate(flat["task_usage"])
    assert carried.subtask.started_at == datetime.fromisoformat(flat["task_started_at"])

    grouped = RunSnapshot.model_validate(
        {
            "step": 3,
            "task_id": "b",
            "task_status": "1/2 hold",
            "task_waited_s": 4.0,
            "plan_version": 2,
            "merged_tasks": ["a"],
        }
    )
    assert grouped.subtask == SubtaskProgress(id="b", status="1/2 hold", waited_s=4.0)
    assert grouped.plan_progress == PlanProgress(plan_version=2, merged=["a"])
    # And the grouped form goes through JSON unchanged (the query, the next generation).
    assert RunSnapshot.model_validate_json(grouped.model_dump_json()) == grouped


def test_a_new_task_starts_from_a_clean_task_progress() -> None:
    """One assignment resets every subtask-level field (workflows.subtask_steps.run_subtask_steps)."""
    assert set(SubtaskProgress.model_fields) == {
        "id", "index", "turns", "conversation", "status", "last_check", "usage", "refused_claims", "started_at",
        "waited_s",
    }  # fmt: skip
    assert "turns" not in RunSnapshot.model_fields and "task_usage" not in RunSnapshot.model_fields
