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
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from contracts.counts import counted
from contracts.errors import InfrastructureError
from experiments.config import ExperimentConfig, FaultKind, with_experiment_settings
from experiments.config_loader import ConfigError
from experiments.provenance import provenance
from experiments.record import keep_record
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
    ends), and, for an experiment that ran to its end, the cluster's databases (`record/`: its
    histories and worlds, which a counterfactual asked for later forks trials from); `scratch/`
    (the databases as the cluster wrote them, its logs, the fault book, the baseline's files)
    goes when the experiment ends, however it ends (a SIGKILL aside). When the lab
    itself failed (an infrastructure error in a trial, or an error that ended the experiment),
    the logs and the failed trials' files are kept first, under `logs/`, for a person to read.
    """
    from experiments.progress import TrialProgress
    from experiments.report import write_report

    experiment_id = new_experiment_id(config)
    directory = reports_dir() / experiment_id
    scratch = directory / "scratch"
    specs = plan_trials(config, experiment_id)
    if not specs:
        raise ConfigError(
            f"no trial to run: no scenario runs on the config's runtimes ({', '.join(config.runtimes)}); "
            "list one of them in a scenario's `runtimes`, or leave it out"
        )
    parallel = concurrency or config.concurrency
    # Before the first trial: what runs is what is recorded (a change made during the run is not).
    recorded = await asyncio.to_thread(provenance, config)
    started = datetime.now(UTC)
    print(
        f"experiment {experiment_id}: {counted(len(specs), 'trial')}, {parallel} at a time -> {directory}", flush=True
    )
    scratch.mkdir(parents=True)
    trials: list[TrialRecord] = []
    broken: InfrastructureError | None = None
    try:
        with TrialProgress(len(specs), parallel) as progress:
            try:
                await _run_trials(config, specs, parallel, directory, scratch, progress, trials)
            except InfrastructureError as error:  # the report still covers the trials recorded
                broken = error
            progress.status("writing the report")
            order = {spec.trial_id: position for position, spec in enumerate(specs)}
            trials.sort(key=lambda record: order[record.trial_id])
            stopped = f"{broken}; {len(trials)} of {counted(len(specs), 'trial')} ran" if broken else ""
            finished = datetime.now(UTC)
            write_report(
                directory, config, experiment_id, trials, started, finished, stopped_early=stopped, provenance=recorded
            )
            # The cluster has stopped: its histories and worlds are kept for counterfactuals
            # asked for later (experiments/record.py).
            await asyncio.to_thread(keep_record, scratch / "cluster", directory)
            progress.status("done")
        if lab_failed := [record.trial_id for record in trials if record.infrastructure_error]:
            _keep_logs(scratch, directory / LOGS_DIR, lab_failed)
    except Exception:  # not an interruption: the lab broke, and its logs say how
        _keep_logs(scratch, directory / LOGS_DIR, [])
        raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if broken is not None:
        raise InfrastructureError(
            f"experiment stopped: {broken}. The report of the {counted(len(trials), 'trial')} recorded is "
            f"in {directory}"
        )
    return directory


LOGS_DIR = "logs"


def _keep_logs(scratch: Path, kept: Path, trial_ids: list[str]) -> None:
    """Move every log, and the files of the named trials' baseline attempts, out of scratch."""
    wanted = [*scratch.rglob("*.log"), *(path for trial in trial_ids for path in scratch.glob(f"{trial}-a*"))]
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

            async def one(spec: TrialSpec) -> None:
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

            await asyncio.gather(*(one(spec) for spec in together))
            for spec in alone:
                await one(spec)
            if down:
                raise InfrastructureError(down[0])
