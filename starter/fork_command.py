"""`python -m starter fork RUN --from-step K`: a new durable run that is RUN up to its step K
(carried over, never run again) and live after it, with RUN's provider or another."""

from __future__ import annotations

import contextlib
from pathlib import Path

from agent.dependencies_from_environment import from_environment
from contracts import ProviderConfig
from contracts.counts import steps_through
from contracts.errors import StarterError
from host.build import build_worker
from lab.models.providers import ProviderChoice, provider_for
from lab.runs.baseline_runs import baseline_has_no_history
from lab.runs.catalog import load_task
from lab.runs.fork import fork_request
from settings import in_project
from starter.connection import temporal_connection
from starter.durable_run import run_durable
from starter.ops_service import ops_service_for
from starter.render import Printer
from starter.run_command import EXIT_OK, EXIT_RUN_FAILED, judge, run_dependencies


async def fork_command(
    parent: str, from_step: int, choice: ProviderChoice | None, script: Path | None, *, keep_server: bool = False
) -> int:
    printer = Printer()
    # This process's data directory: the parent's ledger and checkpoints, and the fork's run.
    here = from_environment()
    if said := baseline_has_no_history(parent, here.ledgers):
        raise StarterError(said)  # before a server is started for it: there is nothing to fork
    async with temporal_connection(keep_server=keep_server) as connection:
        # A worker answers the parent's `progress` query (its final state, read by replay).
        async with build_worker(connection.client, dependencies=here):
            request = await fork_request(connection.client, here, parent, from_step, None)
        task = load_task(request.task_id)
        serving = provider_for(choice, task) if choice is not None else contextlib.nullcontext(None)
        # A run on the operations service: the fork's world is made from its parent's, in the
        # service the parent ran against (the starter's own keeps every tenant).
        async with serving as chosen, ops_service_for(task, printer) as ops_url:
            deps = run_dependencies(here, ops_url, choice or ProviderChoice())
            provider: ProviderConfig = chosen or request.provider
            if script is not None:
                provider = ProviderConfig(kind="scripted", script_path=in_project(script), seed=provider.seed)
            request = request.model_copy(update={"provider": provider})
            printer.line(
                f"fork of {parent} after step {from_step}: {_carried(from_step)}; "
                f"live from step {from_step + 1} with {_described(provider)}"
            )
            printer.carried_through = from_step
            result, link = await run_durable(connection, request, printer, deps)
            judged, where = await judge(deps, result, task, request)
    printer.finished(result, judged)
    carried = request.resume.usage.model_calls if request.resume is not None else 0
    with_steps = f" with {steps_through(from_step)}" if from_step else ""
    printer.line(
        f"  model calls: {result.usage.model_calls - carried} made by the fork, {carried} carried over{with_steps}"
    )
    if where:
        printer.line(f"  {where}")
    printer.line(f"  Web UI: {link}")
    printer.line(f"  compare: uv run python -m starter diff {parent} {result.run_id}")
    return EXIT_OK if result.succeeded and judged.passed else EXIT_RUN_FAILED


def _carried(from_step: int) -> str:
    if from_step == 0:
        return "no steps carried over (the fork runs every step itself)"
    are = "is" if from_step == 1 else "are"
    return f"{steps_through(from_step)} {are} its own, carried over (no model call, no tool run)"


def _described(provider: ProviderConfig) -> str:
    if provider.kind == "scripted":
        return f"the script {provider.script_path}"
    return f"{provider.model or provider.kind} at {provider.base_url or 'the provider default'}"
