"""Running agent runs to their end from a test, whatever their outcome: one durable run, or a
task in both runtimes side by side."""

from __future__ import annotations

import asyncio

from temporalio.client import Client

from baseline import BaselineLoop
from contracts import Approve, ProviderConfig, RunRequest, RunResult
from host.build import build_worker
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from tests.lab_dependencies import lab_deps
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

# A model that says "done" at once: what passes this has graded nothing.
DO_NOTHING = {
    "goal": {"summary": "Nothing to do."},
    "plan": [{"id": "nothing", "title": "Do nothing", "actions": [{"kind": "finish", "thought": "Done."}]}],
}


async def execute_run(client: Client, request: RunRequest, task_queue: str) -> RunResult:
    """Start the run and wait for its RunResult: returned when it completed, carried by the
    workflow's failure when it did not."""
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=task_queue)
    return await run_result(handle)


async def run_durable(client: Client, task_queue: str, request: RunRequest) -> RunResult:
    async with build_worker(client, task_queue):
        return await execute_run(client, request, task_queue)


async def both_runtimes(
    task_id: str, client: Client, task_queue: str, provider: ProviderConfig | None = None
) -> list[tuple[RunRequest, RunResult]]:
    """The task in each runtime, side by side: [(request, result)] for the baseline, then the durable."""
    task = load_task(task_id)
    requests = [build_request(task, runtime, provider=provider) for runtime in ("baseline", "durable")]
    results = await asyncio.gather(
        BaselineLoop(lab_deps(), retry_delay_s=0).run(requests[0]), run_durable(client, task_queue, requests[1])
    )
    return list(zip(requests, results, strict=True))


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
