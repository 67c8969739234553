"""`python -m starter watch RUN`: follow a durable run from any terminal, as `run` follows it.

A run goes on whatever becomes of the terminal that started it (Ctrl-C, a closed window): its
state is its workflow's. `watch` attaches to it, prints its steps (those so far, then each as it
comes) and its outcome exactly as `run` does, and by default serves it with a worker of its own,
so a run whose starter has gone moves again; `--no-worker` only watches (workers run elsewhere).
"""

from __future__ import annotations

import contextlib

from temporalio.client import WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from agent.dependencies_from_environment import from_environment
from contracts import PostconditionResult
from contracts.errors import StarterError
from host.build import build_worker
from starter.connection import temporal_connection
from starter.durable_run import follow, run_link
from starter.embedded_server import embedded_server_after
from starter.render import Printer
from workflows import AgentRunWorkflow

EXIT_OK, EXIT_RUN_FAILED = 0, 1


async def watch(run_id: str, *, with_worker: bool = True) -> int:
    printer = Printer()
    # As `run` does: when no server is configured and none answers, the embedded one is started
    # on its history file (the run's, if `run` used it: a run interrupted there is found again).
    async with temporal_connection() as connection:
        embedded = connection.embedded
        handle = connection.client.get_workflow_handle_for(AgentRunWorkflow.run, run_id)
        try:
            described = await handle.describe()
        except RPCError as error:
            if error.status == RPCStatusCode.NOT_FOUND:
                raise StarterError(
                    f"no run {run_id!r} on this server (a baseline run has no workflow to watch)"
                ) from None
            raise StarterError(f"cannot describe run {run_id!r}: {error.message}") from None
        if described.workflow_type != "AgentRunWorkflow":
            raise StarterError(f"{run_id!r} is a {described.workflow_type} workflow, not an agent run")
        running = described.status == WorkflowExecutionStatus.RUNNING
        status = "running" if running else (described.status.name.lower() if described.status else "closed")
        printer.line(f"watching run {run_id} ({status}): {run_link(connection, run_id, described.run_id)}")
        serve = with_worker and running
        worker = build_worker(connection.client, dependencies=from_environment()) if serve else None
        async with worker if worker is not None else contextlib.nullcontext():
            result = await follow(handle, printer)
    # Judged where the run ended: the acceptance check its workflow made on a worker.
    printer.finished(result, result.acceptance or PostconditionResult(outcomes=[]))
    if embedded is not None and (said := embedded_server_after(embedded)):
        printer.line(f"  {said}")
    return (
        EXIT_OK if result.succeeded and result.acceptance is not None and result.acceptance.passed else EXIT_RUN_FAILED
    )
