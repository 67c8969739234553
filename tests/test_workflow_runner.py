"""The lab's workflow runner (host/workflow_runner.py): every payload takes the workflow's own
contexts, which is right only because the lab's converter gives the same bytes whatever the
context; the sandbox's restrictions stay as they were."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest
from temporalio import workflow
from temporalio.api.common.v1 import Payload
from temporalio.client import Client
from temporalio.converter import (
    ActivitySerializationContext,
    DataConverter,
    SerializationContext,
    StorageDriverActivityInfo,
    StorageDriverStoreContext,
    StorageDriverWorkflowInfo,
    WorkflowSerializationContext,
)
from temporalio.worker import Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

# The sandbox imports this module again for ReadsTheClock: the lab's modules pass through.
with workflow.unsafe.imports_passed_through():
    from contracts import ActionProposal, ToolResult
    from host.converter import DATA_CONVERTER, PAYLOAD_THRESHOLD
    from host.workflow_runner import WorkflowContextRunner, runner_for

WORKFLOW = WorkflowSerializationContext(namespace="default", workflow_id="run-1")


def activity_context(activity_type: str, activity_id: str, *, is_local: bool) -> ActivitySerializationContext:
    return ActivitySerializationContext(
        namespace="default",
        workflow_id="run-1",
        workflow_type="AgentRunWorkflow",
        activity_type=activity_type,
        activity_id=activity_id,
        activity_task_queue="agent-lab",
        is_local=is_local,
    )


ACTIVITY = activity_context("execute_tool", "7", is_local=False)
LOCAL_ACTIVITY = activity_context("record_step", "8", is_local=True)
CONTEXTS: list[SerializationContext] = [WORKFLOW, ACTIVITY, LOCAL_ACTIVITY]
STORE_CONTEXTS = [
    StorageDriverStoreContext(),
    StorageDriverStoreContext(
        target=StorageDriverWorkflowInfo(namespace="default", id="run-1", run_id="r", type="AgentRunWorkflow")
    ),
    StorageDriverStoreContext(target=StorageDriverActivityInfo(namespace="default", id="7", type="execute_tool")),
]
VALUES: list[object] = [
    ActionProposal(kind="tool_call", tool="read_file", arguments={"path": "stats.py"}, thought="look"),
    ToolResult(tool="read_file", ok=True, output="x" * (2 * PAYLOAD_THRESHOLD)),  # kept by reference
    "step 3: read_file(path='stats.py')",
    None,
]


async def _encoded(converter: DataConverter, store: StorageDriverStoreContext) -> list[Payload]:
    return await converter._with_store_context(store).encode(VALUES)


@pytest.mark.parametrize("context", CONTEXTS, ids=lambda context: type(context).__name__)
@pytest.mark.parametrize("store", STORE_CONTEXTS, ids=["none", "workflow", "activity"])
async def test_the_labs_converter_gives_the_same_bytes_in_every_context(
    context: SerializationContext, store: StorageDriverStoreContext
) -> None:
    """What makes the runner's shortcut safe: were a context-aware codec added to the lab's
    converter, this fails, and the runner must answer each payload's real context again."""
    expected = await _encoded(DATA_CONVERTER.with_context(WORKFLOW), STORE_CONTEXTS[1])
    assert await _encoded(DATA_CONVERTER.with_context(context), store) == expected
    assert any(payload.external_payloads for payload in expected), "the large result went by reference"


def test_the_lab_runner_is_for_the_labs_converter_only() -> None:
    assert isinstance(runner_for(DATA_CONVERTER), WorkflowContextRunner)
    other = runner_for(DataConverter.default)
    assert isinstance(other, SandboxedWorkflowRunner) and not isinstance(other, WorkflowContextRunner)


@workflow.defn(sandboxed=True)
class ReadsTheClock:
    """Workflow code that reads the wall clock: the sandbox must refuse it."""

    @workflow.run
    async def run(self) -> str:
        try:
            datetime.now(UTC)
        except Exception as error:
            return type(error).__name__
        return "the clock was read"


async def test_workflow_code_still_runs_in_the_sandbox(client: Client) -> None:
    queue = f"runner-{uuid.uuid4().hex[:8]}"
    async with Worker(client, task_queue=queue, workflows=[ReadsTheClock], workflow_runner=runner_for(DATA_CONVERTER)):
        said = await client.execute_workflow(ReadsTheClock.run, id=f"clock-{uuid.uuid4().hex[:8]}", task_queue=queue)
    assert said == "RestrictedWorkflowAccessError"
