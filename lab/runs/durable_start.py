"""Starting a durable run: the one place that says how, for the starter, the experiments, the
soak and the benchmarks alike."""

from __future__ import annotations

from typing import Any

from temporalio.client import Client, WorkflowHandle

from contracts import TASK_QUEUE, RunRequest, RunResult
from contracts.approval import APPROVAL_MEMO, ApprovalMemo
from lab.runs.run_request import WORKFLOW_TASK_TIMEOUT
from workflows import AgentRunWorkflow


async def start_durable_run(
    client: Client, request: RunRequest, *, task_queue: str = TASK_QUEUE, **options: Any
) -> WorkflowHandle[AgentRunWorkflow, RunResult]:
    """The run's workflow, under its run id, with the lab's workflow task timeout: a worker
    killed while it holds a workflow task keeps the run waiting 2 s, not the default 10 s
    (a read-only tool runs as a local activity inside one). `options`: the rest of
    `Client.start_workflow`'s (memo, search attributes, summaries).

    The run's memo says from its start that it waits for nothing (workflows.approval_memo keeps
    it after): `pending` reads it with no worker alive, so a run no worker has taken yet is
    known not to wait, instead of being asked with a query nobody answers."""
    options["memo"] = {APPROVAL_MEMO: ApprovalMemo(), **(options.get("memo") or {})}
    return await client.start_workflow(
        AgentRunWorkflow.run,
        request,
        id=request.run_id,
        task_queue=task_queue,
        task_timeout=WORKFLOW_TASK_TIMEOUT,
        **options,
    )
