"""Running one durable agent run to its end from a test, whatever its outcome."""

from __future__ import annotations

from temporalio.client import Client

from contracts import RunRequest, RunResult
from workflows import AgentRunWorkflow
from workflows.outcome import run_result


async def execute_run(client: Client, request: RunRequest, task_queue: str) -> RunResult:
    """Start the run and wait for its RunResult: returned when it completed, carried by the
    workflow's failure when it did not."""
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
    return await run_result(handle)
