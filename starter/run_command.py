"""`python -m starter run`: one task, either runtime, judged the same way afterwards."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Callable
from pathlib import Path

from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment
from agent.postconditions import check
from contracts import PostconditionOutcome, PostconditionResult, ProviderConfig, RunRequest, RunResult
from contracts.errors import BadInput, LabError, StarterError
from lab.models.llama_server import stopped_server
from lab.models.providers import ProviderChoice, provider_for
from lab.runs.catalog import Task
from starter.baseline_run import run_baseline
from starter.connection import temporal_connection
from starter.durable_run import run_durable
from starter.embedded_server import EmbeddedServer, embedded_server_after
from starter.ops_service import ops_service_for
from starter.render import Printer

EXIT_OK, EXIT_RUN_FAILED = 0, 1


async def run_task(
    task: Task,
    make_request: Callable[[ProviderConfig], RunRequest],
    choice: ProviderChoice | None = None,
    *,
    keep_server: bool = False,
    with_worker: bool = True,
    ask_approval: bool = True,
) -> int:
    printer = Printer()
    link: str | None = None
    embedded: EmbeddedServer | None = None
    # The model's server (local: llama.cpp, started here) and, for a task that acts on the
    # operations service, a service, unless one is configured: both for the run's duration.
    choice = choice or ProviderChoice()
    async with provider_for(choice, task) as provider, ops_service_for(task) as ops_url:
        request = make_request(provider)
        deps = run_dependencies(from_environment(), ops_url, choice)
        try:
            if request.runtime == "baseline":
                result: RunResult = await run_baseline(request, printer, deps, ask=ask_approval)
            else:
                try:
                    async with temporal_connection(keep_server=keep_server) as connection:
                        embedded = connection.embedded
                        result, link = await run_durable(connection, request, printer, deps, with_worker=with_worker)
                except asyncio.CancelledError:
                    # Ctrl-C: the run goes on (run_durable said how to watch it); so may a server
                    # kept with --keep-server, and a person must learn how to stop it.
                    if embedded is not None and (said := embedded_server_after(embedded)):
                        printer.line(f"  {said}")
                    raise
        except BadInput:
            raise
        except LabError as error:
            # The baseline's own failure before its loop (its workspace, its world): one line.
            raise StarterError(f"{type(error).__name__}: {error}") from None
        # Both runtimes are judged the same way: the task's postconditions on the real end state.
        judged, where = await judge(deps, result, task, request)
        # A crashed model server fails every call after it: say so, not only the calls' errors.
        gone = stopped_server(provider.base_url)
    printer.finished(result, judged)
    if where:
        printer.line(f"  {where}")
    if gone:
        printer.line(f"  {gone}")
    if link:
        printer.line(f"  Web UI: {link}")
        if embedded is not None and (said := embedded_server_after(embedded)):
            printer.line(f"  {said}")
    return EXIT_OK if result.succeeded and judged.passed else EXIT_RUN_FAILED


def run_dependencies(deps: Dependencies, ops_url: str | None, choice: ProviderChoice) -> Dependencies:
    """What the in-process worker or the baseline uses: `deps` (this process's data directory and
    sandbox), with the operations service the run was given and the key given on the command line."""
    return dataclasses.replace(deps, ops_url=ops_url, api_keys={**deps.api_keys, **choice.api_keys()})


async def judge(
    deps: Dependencies, result: RunResult, task: Task, request: RunRequest
) -> tuple[PostconditionResult, str]:
    """The task's postconditions on the run's end state, and where they were checked when not
    here. A durable run whose workers keep their workspaces elsewhere (another machine, a
    container: `--no-worker`) is judged by the check its workflow made on a worker at its end:
    the same checker, on the same end state, with the same postconditions (the task's, set by
    code, never by the model), read where the workspace is."""
    workspace = Path(result.workspace)
    if result.runtime == "baseline" or workspace.is_dir():
        return await check(deps, workspace, task.spec.postconditions, request.world_id), ""
    if result.acceptance is not None:
        return result.acceptance, f"(judged on a worker: the workspace {workspace} is on the workers' file system)"
    unjudged = PostconditionResult(
        outcomes=[
            PostconditionOutcome(
                description=condition.describe(),
                passed=False,
                detail="not checked: the run ended before its acceptance check",
            )
            for condition in task.spec.postconditions
        ]
    )
    return unjudged, f"(not judged: the workspace {workspace} is on the workers' file system, and the run ended first)"
