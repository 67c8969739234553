"""An experiment: every (runtime, task, scenario, trial) of a config, with real processes, each
trial in a fresh world, then a report.

Fairness: every trial has its own workspace, its own tenant in the operations service and its
own fault, bound to its run; both runtimes get the same tasks, provider, seeds (trial i uses
seed + i) and faults, and are judged by the same postcondition checker on the real end state.
Server restarts take the server down for everyone, so those trials run alone, last.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from contracts.counts import counted
from contracts.errors import InfrastructureError
from experiments.config import ExperimentConfig, FaultKind, with_experiment_settings
from experiments.config_loader import ConfigError
from experiments.freeze import frozen_provenance
from experiments.record import keep_record
from experiments.resume import (
    ExperimentStart,
    Part,
    finished_trials,
    prepare_cluster,
    read_start,
    resumed_part,
    stop_cut_short,
    unfinished,
    write_start,
)
from experiments.trial_record import TrialRecord
from lab.runs.catalog import load_task
from settings import data_dir

# The cluster, the trials, the report and the progress bar load Temporal's SDK, matplotlib and
# rich (seconds): they are imported when an experiment runs, so that the CLI can check a config
# or find a report through this module without waiting for them.
if TYPE_CHECKING:
    from experiments.progress import TrialProgress
    from experiments.trials import TrialSpec


def reports_dir() -> Path:
    return data_dir() / "reports"


def plan_trials(config: ExperimentConfig, experiment_id: str) -> list[TrialSpec]:
    return list(_plan(config, experiment_id))


def _plan(config: ExperimentConfig, experiment_id: str) -> Iterator[TrialSpec]:
    """Trial by trial, the runtimes in turn (durable #0, baseline #0, durable #1, ...): what
    drifts over an experiment (a shared machine's speed, a model server's prompt cache left by
    the trial before) falls on every runtime alike, not on whichever ran first."""
    from experiments.trials import TrialSpec

    for scenario in config.scenarios:
        for task_id in scenario.tasks or config.tasks:
            task = load_task(task_id)
            runtimes = [runtime for runtime in config.runtimes if config.runs(scenario, runtime)]
            for index in range(config.trials):
                for runtime in runtimes:
                    yield TrialSpec(experiment_id, task, runtime, scenario, index, config.seed + index)


def new_experiment_id(config: ExperimentConfig) -> str:
    return f"{config.name}-{datetime.now(UTC):%Y%m%d-%H%M%S}"


async def run_experiment(config: ExperimentConfig, *, concurrency: int | None = None) -> Path:
    """Run every trial, write the report, return its directory.

    The directory keeps the report and every trial recorded (`trials.jsonl`, appended as each
    ends), what the experiment started with (`experiment.json`, for `resume_experiment`), and
    the cluster's databases (`record/`: its histories and worlds, which a counterfactual asked
    for later forks trials from); `scratch/` (the databases as the cluster wrote them, its logs,
    the fault book, the baseline's files) goes when the experiment ends, however it ends (a
    SIGKILL aside). When the lab itself failed (an infrastructure error in a trial, or an error
    that ended the experiment), the logs and the failed trials' files are kept first, under
    `logs/`, for a person to read.
    """
    experiment_id = new_experiment_id(config)
    specs = plan_trials(config, experiment_id)
    if not specs:
        raise ConfigError(
            f"no trial to run: no scenario runs on the config's runtimes ({', '.join(config.runtimes)}); "
            "list one of them in a scenario's `runtimes`, or leave it out"
        )
    # Before the first trial: what runs is what is recorded (a change made during the run is not).
    recorded = await asyncio.to_thread(frozen_provenance, config)
    start = ExperimentStart(
        experiment_id=experiment_id, config=config, parts=[Part(started=datetime.now(UTC), provenance=recorded)]
    )
    directory = reports_dir() / experiment_id
    (directory / "scratch").mkdir(parents=True)
    return await _run_part(directory, start, specs, [], concurrency or config.concurrency)


async def resume_experiment(
    directory: Path, config: ExperimentConfig | None, *, concurrency: int | None = None, allow_code_change: bool = False
) -> Path:
    """Run the trials of the experiment in `directory` that `trials.jsonl` does not hold, and
    write its report over all of them (experiments.resume). `config`: the config file asked
    for, refused unless it is the one the experiment started with."""
    start = read_start(directory)
    finished = finished_trials(directory)
    now = await asyncio.to_thread(frozen_provenance, start.config)
    part = resumed_part(start, config, now, allow_code_change, len(finished))
    specs = [
        replace(spec, resumption=len(start.parts))
        for spec in unfinished(plan_trials(start.config, start.experiment_id), finished)
    ]
    start.parts.append(part)
    prepare_cluster(directory, directory / "scratch")
    (directory / "scratch").mkdir(exist_ok=True)
    return await _run_part(directory, start, specs, finished, concurrency or start.config.concurrency)


async def _run_part(
    directory: Path, start: ExperimentStart, specs: list[TrialSpec], finished: list[TrialRecord], parallel: int
) -> Path:
    """Run `specs` (the trials not `finished` yet), then the report over every trial."""
    from experiments.progress import TrialProgress
    from experiments.report import write_report

    config, experiment_id = start.config, start.experiment_id
    scratch = directory / "scratch"
    write_start(directory, start)
    resumed = f", resuming after {counted(len(finished), 'finished trial')}" if finished else ""
    print(
        f"experiment {experiment_id}: {counted(len(specs), 'trial')}{resumed}, {parallel} at a time -> {directory}",
        flush=True,
    )
    trials: list[TrialRecord] = list(finished)
    broken: InfrastructureError | None = None
    try:
        with TrialProgress(len(specs), parallel) as progress:
            if specs:
                try:
                    await _run_trials(config, specs, parallel, directory, scratch, progress, trials)
                except InfrastructureError as error:  # the report still covers the trials recorded
                    broken = error
            progress.status("writing the report")
            planned = plan_trials(config, experiment_id)
            order = {spec.trial_id: position for position, spec in enumerate(planned)}
            trials.sort(key=lambda record: order.get(record.trial_id, len(order)))
            stopped = f"{broken}; {len(trials)} of {counted(len(planned), 'trial')} ran" if broken else ""
            write_report(
                directory,
                config,
                experiment_id,
                trials,
                start.started,
                datetime.now(UTC),
                stopped_early=stopped,
                provenance=start.parts[0].provenance,
                parts=start.parts,
            )
            # The cluster has stopped: its histories and worlds are kept for a resume or a
            # counterfactual asked for later (experiments/record.py).
            await asyncio.to_thread(keep_record, scratch / "cluster", directory)
            progress.status("done")
        if lab_failed := [record.trial_id for record in trials if record.infrastructure_error]:
            _keep_logs(scratch, directory / LOGS_DIR, lab_failed)
    except (asyncio.CancelledError, KeyboardInterrupt):
        _keep_what_it_can(scratch / "cluster", directory)  # for the resume
        print(
            f"interrupted: {counted(len(trials), 'trial')} recorded in {directory}; run the rest with "
            f"`uv run python -m starter experiment run --resume {directory}`",
            flush=True,
        )
        raise
    except Exception:  # not an interruption: the lab broke, and its logs say how
        _keep_logs(scratch, directory / LOGS_DIR, [])
        _keep_what_it_can(scratch / "cluster", directory)
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if broken is not None:
        raise InfrastructureError(
            f"experiment stopped: {broken}. The report of the {counted(len(trials), 'trial')} recorded is "
            f"in {directory}; run the rest with `experiment run --resume {directory}`"
        )
    return directory


LOGS_DIR = "logs"


def _keep_what_it_can(cluster: Path, directory: Path) -> None:
    """A part cut short keeps its cluster's databases for a resume, when they can be read: the
    error or interruption that ended it is what the person must see, not one of this copy."""
    try:
        keep_record(cluster, directory)
    except (OSError, sqlite3.Error) as error:
        print(f"the runs' databases could not be kept ({error}): a resume starts them anew", flush=True)


def _keep_logs(scratch: Path, kept: Path, trial_ids: list[str]) -> None:
    """Move every log, and the files of the named trials' baseline attempts (those of a trial run
    again in a resumed part included), out of scratch."""
    attempts = [path for trial in trial_ids for pattern in ("-a*", "-r*-a*") for path in scratch.glob(trial + pattern)]
    wanted = [*scratch.rglob("*.log"), *attempts]
    for path in wanted:
        target = kept / path.relative_to(scratch)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.move(path, target)


async def _run_trials(
    config: ExperimentConfig,
    specs: list[TrialSpec],
    parallel: int,
    directory: Path,
    scratch: Path,
    progress: TrialProgress,
    trials: list[TrialRecord],
) -> None:
    """Run the trials, appending each record to `trials` (and to `trials.jsonl`) as it ends.
    When the local model server goes away, the trial that saw it counts as the lab's failure,
    no further trial starts (each would fail the same way), and InfrastructureError says so."""
    from experiments.harness import LabCluster
    from experiments.harness.pool import WorkerPool
    from experiments.trials import FaultBook, Lab, run_trial
    from experiments.trials.counterfactual import counterfactual_provider
    from experiments.trials.random_crash import FaultFreeTrials
    from lab.models.llama_log import LlamaLog
    from lab.models.llama_server import keep_only_the_system_prompt, server_log_path, stopped_server
    from lab.models.providers import ProviderChoice, provider_for

    progress.status("starting the cluster")
    choice = ProviderChoice.resolve(config.provider.kind, config.provider.model, config.provider.base_url, None, 0)
    async with (
        provider_for(choice, specs[0].task) as served,
        LabCluster(scratch / "cluster") as cluster,
    ):
        provider = with_experiment_settings(served, config.provider)
        if specs[0].resumption:
            assert cluster.client is not None
            await stop_cut_short(cluster.client)
        # At one trial at a time the local server's log between two marks is one trial's calls.
        server_log = LlamaLog(server_log_path()) if config.provider.kind == "local" and parallel == 1 else None
        faults = FaultBook(scratch / "faults.json")
        lab = Lab(
            cluster=cluster,
            faults=faults,
            provider=provider,
            config=config,
            scratch=scratch,
            counterfactual_provider=counterfactual_provider(config, served),
        )
        progress.status(f"starting {parallel + 1} workers")
        async with WorkerPool(cluster, size=parallel + 1, fault_plan=faults.path):
            progress.status("running trials")
            together = [spec for spec in specs if spec.scenario.kind != FaultKind.SERVER_RESTART]
            alone = [spec for spec in specs if spec.scenario.kind == FaultKind.SERVER_RESTART]
            gate = asyncio.Semaphore(parallel)

            down: list[str] = []

            drawn_on = FaultFreeTrials(lab, trials)

            async def one(spec: TrialSpec) -> None:
                try:
                    await drawn_on.ready(spec)  # a random crash: once its fault-free trial is recorded
                    async with gate:
                        if down:
                            return
                        progress.started()
                        if server_log and provider.base_url:
                            await keep_only_the_system_prompt(provider.base_url)
                        mark = server_log.mark() if server_log else 0
                        record = await run_trial(spec, lab)
                        if server_log:
                            record = record.model_copy(update={"call_timings": server_log.calls_since(mark)})
                        if (why := stopped_server(provider.base_url)) is not None:
                            down.append(why)
                            record = record.model_copy(update={"infrastructure_error": f"InfrastructureError: {why}"})
                    trials.append(record)
                    with (directory / "trials.jsonl").open("a") as raw:
                        raw.write(record.model_dump_json() + "\n")
                    progress.finished(record)
                    drawn_on.recorded(record)
                finally:
                    drawn_on.done(spec)  # recorded or not: no crash trial waits for it forever

            await asyncio.gather(*(one(spec) for spec in together))
            for spec in alone:
                await one(spec)
            if down:
                raise InfrastructureError(down[0])
