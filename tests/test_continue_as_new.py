"""History stays small: with the server's suggestion threshold lowered, a run continues as new
several times and finishes exactly as an uninterrupted run would, its typed state carried."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from agent.ledger import ledger_path, read_events, verify_ledger
from agent.postconditions import check
from contracts import RunState
from host.build import build_worker
from host.converter import DATA_CONVERTER
from lab.catalog import Task
from lab.invariants import RULES, check_run, fetch_generations, gather
from lab.run_request import build_request
from tests.conftest import DEV_SERVER, FAST_DEV_SERVER_ARGS
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
    assert last.plan is not None and [task.id for task in last.plan.tasks] == result.plan
    assert last.sandbox is not None and last.sandbox == result.sandbox
    assert last.started_at is not None and last.workspace == result.workspace
    assert last.steps == result.steps
    # Every step of every generation is in the result, numbered without gaps or repeats.
    assert [s.step for s in result.steps] == list(range(1, len(result.steps) + 1))
    assert [s.task_id for s in result.steps][:3] == ["rename-definition"] * 3
    assert (await check(Path(result.workspace), rename_task.spec.postconditions)).passed

    # Each generation kept its history under the threshold (plus the step in flight).
    runs = [run async for run in client.list_workflows(f"WorkflowId = '{request.run_id}'")]
    assert len(runs) == result.generations
    for run in runs:
        events = [e async for e in client.get_workflow_handle(request.run_id, run_id=run.run_id).fetch_history_events()]
        assert len(events) < SUGGEST_AFTER_EVENTS * 2

    # One ledger across generations, one unbroken chain.
    report = verify_ledger(ledger_path(request.run_id))
    assert report.ok
    commits = [e.step for e in read_events(ledger_path(request.run_id)) if e.type == "commit"]
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

    ledger = ledger_path(request.run_id)
    whole = gather(request.run_id, ledger, generations)
    assert whole.history is not None
    assert [(s.step, s.outcome) for s in whole.history.steps] == [(s.step, "commit") for s in result.steps]
    assert [outcome.status for outcome in check_run(whole).outcomes] == ["pass"] * len(RULES)
    for number, generation in enumerate(generations, 1):
        alone = check_run(gather(request.run_id, ledger, [generation]))
        assert alone.clean, (number, [str(found) for found in alone.violations])
