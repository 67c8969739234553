"""A trial's counterfactual (`ExperimentConfig.counterfactual`): its durable run forked after
step K once it has ended (`lab.runs.fork`), run live from step K+1 with the counterfactual's provider,
and judged as the trial was, on its own end state.

The fork runs while the experiment's cluster still holds the trial's history (the fork reads
its request and state from it) and its world (the operations service makes the fork's from
it). It runs with none of the trial's injected faults: its run id is in no fault plan, and its
provider carries no noise. Steps 1..K are the trial's, faults and all: the question is what
the trial would have become from there.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from temporalio.client import Client

from agent import ops_world
from agent.dependencies import Dependencies
from agent.postconditions import check
from contracts import ProviderConfig, RunRequest, RunResult, Usage
from contracts.errors import StarterError
from experiments.config import ExperimentConfig, with_experiment_settings
from experiments.measure import duplicate_effects
from experiments.trial_record import CounterfactualRecord
from experiments.trials.durable_trial import approve_what_waits
from experiments.trials.invariants import trial_invariants
from experiments.trials.spec import Lab
from lab.models.providers import ProviderChoice
from lab.runs.catalog import Task
from lab.runs.durable_start import start_durable_run
from lab.runs.fork import fork_request
from lab.runs.run_diff import diff_runs, read_run
from settings import in_project
from workflows.outcome import run_result

FORK_TIMEOUT_S = 600.0


def counterfactual_provider(config: ExperimentConfig, served: ProviderConfig) -> ProviderConfig | None:
    """The forks' provider, from the config: the scripted kind (each task's script, set per
    trial), the experiment's own local model server (the config allows no other), or an
    OpenAI-compatible server. StarterError for an openai provider with no usable key."""
    if config.counterfactual is None:
        return None
    spec = config.counterfactual.provider
    if spec.kind == "scripted":
        return ProviderConfig(kind="scripted")
    if spec.kind == "local":
        return with_experiment_settings(served, spec)
    choice = ProviderChoice.resolve("openai", spec.model, spec.base_url, None, 0)
    return with_experiment_settings(ProviderConfig(kind="openai", model=choice.model, base_url=choice.base_url), spec)


def fork_provider(task: Task, seed: int, lab: Lab) -> ProviderConfig:
    """The fork's provider, with the trial's seed; the scripted kind follows the task's script."""
    provider = lab.counterfactual_provider
    if provider is None:
        raise StarterError("the experiment has no counterfactual provider")
    if provider.kind == "scripted":
        provider = provider.model_copy(update={"script_path": in_project(task.require_script())})
    return provider.model_copy(update={"seed": seed, "noise": None})


async def fork_trial(task: Task, seed: int, lab: Lab, run_id: str) -> CounterfactualRecord:
    """Fork the trial's durable run `run_id` as `lab.config.counterfactual` says, run the fork
    to its end and measure it. Never raises for the fork's sake: what went wrong is recorded."""
    counterfactual, client = lab.config.counterfactual, lab.cluster.client
    if counterfactual is None or client is None:
        raise StarterError("no counterfactual is configured, or the cluster has no client")
    record = CounterfactualRecord(from_step=counterfactual.from_step)
    try:
        provider = fork_provider(task, seed, lab)
        request = await fork_request(client, lab.cluster.dependencies, run_id, counterfactual.from_step, provider)
    except StarterError as error:  # fewer steps than K, checkpoints gone: said, not counted
        return record.model_copy(update={"not_forked": str(error)})
    record = record.model_copy(update={"forked": True, "run_id": request.run_id})
    started = time.monotonic()
    try:
        async with asyncio.timeout(FORK_TIMEOUT_S):
            result = await _run(client, request)
        record = record.model_copy(update={"wall_time_s": time.monotonic() - started})
        return await _measure(record, task, client, lab.cluster.dependencies, request, result)
    except Exception as error:  # the lab failed, not the agent: the fork counts as failed
        update = {"infrastructure_error": f"{type(error).__name__}: {error}", "wall_time_s": time.monotonic() - started}
        return record.model_copy(update=update)


async def _run(client: Client, request: RunRequest) -> RunResult:
    handle = await start_durable_run(client, request)
    approver = asyncio.create_task(approve_what_waits(handle))
    try:
        return await run_result(handle)
    finally:
        approver.cancel()


async def _measure(
    record: CounterfactualRecord, task: Task, client: Client, deps: Dependencies, request: RunRequest, result: RunResult
) -> CounterfactualRecord:
    judged = await check(deps, Path(result.workspace), task.spec.postconditions, world_id=request.world_id)
    duplicates = 0
    if ops_world.seed_file(task.fixture_dir) is not None:
        duplicates = duplicate_effects(await ops_world.world_state(deps.ops_url, request.world_id))
    carried = request.resume.usage if request.resume is not None else Usage()
    parent = request.fork.parent_run_id if request.fork is not None else ""
    diff = await asyncio.to_thread(
        lambda: diff_runs(read_run(deps.ledgers, parent), read_run(deps.ledgers, request.run_id))
    )
    violations, _ = await trial_invariants(client, deps, request.run_id)
    return record.model_copy(
        update={
            "success": judged.passed and duplicates == 0,
            "outcome": result.outcome.value,
            "reason": result.reason,
            "judged": judged,
            "steps": len(result.steps),
            "live_model_calls": result.usage.model_calls - carried.model_calls,
            "live_tokens": result.usage.total_tokens - carried.total_tokens,
            "first_difference": diff.first_difference,
            "duplicate_effects": duplicates,
            "invariant_violations": violations,
        }
    )
