"""An experiment: every (runtime, task, scenario, trial) of a config, with real processes, each
trial in a fresh world, then a report.

Fairness: every trial has its own workspace, its own tenant in the operations service and its
own fault, bound to its run; both runtimes get the same tasks, provider, seeds (trial i uses
seed + i) and faults, and are judged by the same postcondition checker on the real end state.
Server restarts take the server down for everyone, so those trials run alone, last.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from contracts.experiment import ExperimentConfig, FaultKind, TrialRecord
from experiments.catalog import load_task
from experiments.harness import LabCluster
from experiments.harness.pool import WorkerPool
from experiments.progress import Progress
from experiments.report import write_report
from experiments.trials import FaultBook, Lab, TrialSpec, run_trial
from settings import data_dir
from starter.providers import ProviderChoice, provider_for


def reports_dir() -> Path:
    return data_dir() / "reports"


def plan_trials(config: ExperimentConfig, experiment_id: str) -> list[TrialSpec]:
    return list(_plan(config, experiment_id))


def _plan(config: ExperimentConfig, experiment_id: str) -> Iterator[TrialSpec]:
    for scenario in config.scenarios:
        for task_id in scenario.tasks or config.tasks:
            task = load_task(task_id)
            for runtime in config.runtimes:
                if not config.runs(scenario, runtime):
                    continue
                for index in range(config.trials):
                    yield TrialSpec(experiment_id, task, runtime, scenario, index, config.seed + index)


def new_experiment_id(config: ExperimentConfig) -> str:
    return f"{config.name}-{datetime.now(UTC):%Y%m%d-%H%M%S}"


async def run_experiment(config: ExperimentConfig, *, concurrency: int | None = None) -> Path:
    """Run every trial, write the report, return its directory."""
    experiment_id = new_experiment_id(config)
    directory = reports_dir() / experiment_id
    scratch = directory / "scratch"
    scratch.mkdir(parents=True)
    specs = plan_trials(config, experiment_id)
    parallel = concurrency or config.concurrency
    started = datetime.now(UTC)
    print(f"experiment {experiment_id}: {len(specs)} trials, {parallel} at a time -> {directory}", flush=True)
    trials: list[TrialRecord] = []
    progress = Progress(len(specs))
    choice = ProviderChoice.resolve(config.provider.kind, config.provider.model, config.provider.base_url, None, 0)
    async with (
        provider_for(choice, specs[0].task) as provider,
        LabCluster(scratch / "cluster") as cluster,
    ):
        # Every process of the cluster (workers, baseline loops, this one) uses its service.
        os.environ["AGENT_LAB_OPS_URL"] = cluster.ops_url or ""
        faults = FaultBook(scratch / "faults.json")
        lab = Lab(cluster=cluster, faults=faults, provider=provider, config=config, scratch=scratch)
        async with WorkerPool(cluster, size=parallel + 1, fault_plan=faults.path):
            together = [spec for spec in specs if spec.scenario.kind != FaultKind.SERVER_RESTART]
            alone = [spec for spec in specs if spec.scenario.kind == FaultKind.SERVER_RESTART]
            gate = asyncio.Semaphore(parallel)

            async def one(spec: TrialSpec) -> None:
                async with gate:
                    record = await run_trial(spec, lab)
                trials.append(record)
                with (directory / "trials.jsonl").open("a") as raw:
                    raw.write(record.model_dump_json() + "\n")
                progress.finished(record)

            await asyncio.gather(*(one(spec) for spec in together))
            for spec in alone:
                await one(spec)
    order = {spec.trial_id: position for position, spec in enumerate(specs)}
    trials.sort(key=lambda record: order[record.trial_id])
    write_report(directory, config, experiment_id, trials, started, datetime.now(UTC))
    return directory
