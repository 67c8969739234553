"""Running one durable agent run to its end from a test, whatever its outcome."""

from __future__ import annotations

import asyncio
import contextlib

from temporalio.client import Client

from contracts import RunRequest, RunResult
from experiments.trials.durable_trial import approve_what_waits
from workflows import AgentRunWorkflow
from workflows.outcome import run_result


async def execute_run(client: Client, request: RunRequest, task_queue: str) -> RunResult:
    """Start the run and wait for its RunResult: returned when it completed, carried by the
    workflow's failure when it did not."""
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
    return await run_result(handle)


async def execute_run_approved(client: Client, request: RunRequest, task_queue: str) -> RunResult:
    """`execute_run` with the experiment's person beside it, who approves each proposal the run
    waits on, as in an experiment's durable trial: a run that needs a person's approval would
    otherwise wait for one until the test times out."""
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
    person = asyncio.create_task(approve_what_waits(handle))
    try:
        return await run_result(handle)
    finally:
        person.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await person
