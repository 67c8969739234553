"""What a person finds in the Temporal Web UI: search attributes, memo, summaries, details."""

from __future__ import annotations

import io
from datetime import timedelta

from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from contracts import RunState
from host.converter import DATA_CONVERTER
from lab.runs.catalog import Task
from lab.runs.run_request import WORKFLOW_TASK_TIMEOUT, build_request
from starter.connection import Connection, ensure_search_attributes
from starter.durable_run import run_durable
from starter.render import Printer
from tests.lab_dependencies import lab_deps
from workflows import visibility


async def test_a_run_is_findable_and_explained_in_the_web_ui(dev_env: WorkflowEnvironment, bugfix_task: Task) -> None:
    client = dev_env.client
    assert await ensure_search_attributes(client)
    connection = Connection(client, "dev", "http://ui", embedded=None, search_attributes=True)
    output = io.StringIO()

    result, link = await run_durable(connection, build_request(bugfix_task, "durable"), Printer(output), lab_deps())

    assert result.outcome == RunState.COMPLETED
    assert link.startswith(f"http://ui/namespaces/default/workflows/{result.run_id}/")
    assert "step  3 fix-median: replace_in_file" in output.getvalue()

    handle = client.get_workflow_handle(result.run_id)
    described = await handle.describe()
    attributes = described.typed_search_attributes
    assert attributes.get(visibility.RUNTIME) == "durable"
    assert attributes.get(visibility.TASK) == "bugfix-median"
    assert attributes.get(visibility.OUTCOME) == "COMPLETED"
    assert await described.memo_value("task") == "bugfix-median"
    assert await described.static_summary() == "durable agent run on task bugfix-median"
    # A worker killed holding a workflow task keeps it this long, not Temporal's default 10 s.
    timeout = described.raw_description.execution_config.default_workflow_task_timeout
    assert timeout.ToTimedelta() == WORKFLOW_TASK_TIMEOUT == timedelta(seconds=2)

    summaries = []
    async for event in handle.fetch_history_events():
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
            payload = event.user_metadata.summary
            summaries.append(DATA_CONVERTER.payload_converter.from_payload(payload, str))
    assert summaries[:3] == ["copy the fixture", "interpret the goal", "draft a plan"]
    assert "step 1: propose (fix-median)" in summaries
    assert any(s.startswith("step 3: replace_in_file(path='textstats/stats.py'") for s in summaries)


async def test_a_server_without_the_search_attributes_still_runs(
    dev_env: WorkflowEnvironment, bugfix_task: Task
) -> None:
    client = dev_env.client
    connection = Connection(client, "dev", "http://ui", embedded=None, search_attributes=False)
    result, _ = await run_durable(connection, build_request(bugfix_task, "durable"), Printer(io.StringIO()), lab_deps())
    # Off (a server that refused to register them): the run works and upserts nothing,
    # where an upsert of an unknown attribute would fail its workflow task over and over.
    described = await client.get_workflow_handle(result.run_id).describe()
    assert described.typed_search_attributes.get(visibility.OUTCOME) is None
    assert result.outcome == RunState.COMPLETED
