"""Running one durable agent run to its end from a test, whatever its outcome."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from contracts import Approve, RunRequest, RunResult
from workflows import AgentRunWorkflow
from workflows.outcome import run_result


async def execute_run(client: Client, request: RunRequest, task_queue: str) -> RunResult:
    """Start the run and wait for its RunResult: returned when it completed, carried by the
    workflow's failure when it did not."""
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
    return await run_result(handle)


async def execute_run_approved(client: Client, request: RunRequest, task_queue: str) -> RunResult:
    """`execute_run` with a person who approves each proposal the run waits on, as an
    experiment's does. It watches by queries until the run ends, and only then asks for the
    result: the time-skipping test server moves its clock on while a client waits for a result,
    so a run waiting for a person would meet its execution timeout at once."""
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
    approved: set[tuple[int, str]] = set()
    while not (progress := await handle.query(AgentRunWorkflow.progress, 0)).state.terminal:
        pending = progress.pending_approval
        # A query may show a decision already given until the run moves on: approve each once.
        if pending is not None and (pending.step, pending.arguments_sha256) not in approved:
            approved.add((pending.step, pending.arguments_sha256))
            await handle.execute_update(
                AgentRunWorkflow.approve, Approve(approver="test", arguments_sha256=pending.arguments_sha256)
            )
        await asyncio.sleep(0.02)
    return await run_result(handle)
