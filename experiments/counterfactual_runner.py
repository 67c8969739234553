"""Counterfactuals of an experiment recorded earlier (a config with `of:`): its durable trials
forked after step K from the histories and worlds its report directory keeps (`record/`,
experiments/record.py), each fork run on with the config's provider, and a report of its own
that sets every trial beside its fork.

The recorded databases are copied into this experiment's scratch, and a cluster over the copies
serves the trials' histories (a fork reads its parent's request and state there) and worlds (the
operations service makes each fork's world from its trial's); the record itself stays as it was.
The trials' workspaces, checkpoints and ledgers are read where they are, under the data
directory. One model server runs: the config's, whatever model the trials had.
"""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime
from pathlib import Path

from pydantic import ValidationError

from contracts.counts import counted
from contracts.errors import ConfigError, ReportError
from contracts.problems import render
from experiments.config import CounterfactualConfig, ExperimentConfig
from experiments.metrics import fork_succeeded
from experiments.progress import TrialProgress
from experiments.provenance import provenance
from experiments.record import keep_record, restore_record
from experiments.report import read_results, read_trials, write_report
from experiments.runner import new_experiment_id, reports_dir
from experiments.trial_record import TrialRecord
from lab.runs.catalog import load_task


async def run_counterfactuals(config: CounterfactualConfig, *, concurrency: int | None = None) -> Path:
    """Fork every durable trial of the recorded experiment, write the report, return its
    directory. ConfigError for an experiment that is not there, kept no record, or has no
    durable trial to fork."""
    recorded = find_recorded(config.of)
    try:
        document = read_results(recorded)
        trials = read_trials(recorded / document.trials_file)
    except ReportError as error:
        raise ConfigError(f"of: {error}") from None
    asked = {
        "name": config.name,
        "description": config.description or f"Counterfactuals of {document.experiment_id}.",
        "counterfactual": config.counterfactual.model_dump(),
    }
    merged = document.config.model_dump() | asked
    try:
        experiment = ExperimentConfig.model_validate(merged)
    except ValidationError as error:
        raise ConfigError(f"of {document.experiment_id}: {render(error, merged)}") from None
    durable = [t for t in trials if t.runtime == "durable" and t.run_ids and t.infrastructure_error is None]
    if not durable:
        raise ConfigError(f"of: {document.experiment_id} has no durable trial to fork")
    experiment_id = new_experiment_id(experiment)
    directory = reports_dir() / experiment_id
    scratch = directory / "scratch"
    parallel = concurrency or config.concurrency
    restore_record(recorded, scratch / "cluster")
    # The forks are this code's: its provenance, the recorded trials keep their own in `of`.
    produced_by = await asyncio.to_thread(provenance, experiment, config.counterfactual.provider)
    started = datetime.now(UTC)
    print(
        f"counterfactuals {experiment_id}: {counted(len(durable), 'trial')} of {document.experiment_id} to fork",
        flush=True,
    )
    try:
        with TrialProgress(len(durable), parallel) as progress:
            forked = await _fork_all(experiment, durable, parallel, scratch, progress)
            progress.status("writing the report")
            records = [forked.get(trial.trial_id, trial) for trial in trials]
            finished = datetime.now(UTC)
            write_report(
                directory,
                experiment,
                experiment_id,
                records,
                started,
                finished,
                forks_of=document.experiment_id,
                provenance=produced_by,
            )
            await asyncio.to_thread(keep_record, scratch / "cluster", directory)
            progress.status("done")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return directory


def find_recorded(of: str) -> Path:
    """The report directory `of` names: an experiment id under data/reports/, a path, or a
    config name (the latest experiment of that name)."""
    root = reports_dir()
    for candidate in (root / of, Path(of).expanduser()):
        if (candidate / "results.json").is_file():
            return candidate
    named = [path.parent for path in root.glob(f"{of}-*/results.json") if _config_name(path.parent) == of]
    if named:
        return max(named, key=lambda path: (path / "results.json").stat().st_mtime)
    raise ConfigError(
        f"of: no recorded experiment {of!r}: neither an id in {root}, a report directory, nor a config name"
    )


def _config_name(directory: Path) -> str | None:
    try:
        return read_results(directory).config.name
    except ReportError:
        return None


async def _fork_all(
    experiment: ExperimentConfig, trials: list[TrialRecord], parallel: int, scratch: Path, progress: TrialProgress
) -> dict[str, TrialRecord]:
    from experiments.harness import LabCluster
    from experiments.harness.pool import WorkerPool
    from experiments.trials import FaultBook, Lab
    from experiments.trials.counterfactual import counterfactual_provider, fork_trial
    from lab.models.providers import ProviderChoice, provider_for

    assert experiment.counterfactual is not None
    spec = experiment.counterfactual.provider
    choice = ProviderChoice.resolve(spec.kind, spec.model, spec.base_url, None, 0)
    progress.status("starting the cluster")
    async with (
        provider_for(choice, load_task(trials[0].task_id)) as served,
        LabCluster(scratch / "cluster") as cluster,
    ):
        lab = Lab(
            cluster=cluster,
            faults=FaultBook(scratch / "faults.json"),
            provider=served,
            config=experiment,
            scratch=scratch,
            counterfactual_provider=counterfactual_provider(experiment, served),
        )
        progress.status(f"starting {parallel + 1} workers")
        async with WorkerPool(cluster, size=parallel + 1):
            progress.status("forking trials")
            gate = asyncio.Semaphore(parallel)
            forked: dict[str, TrialRecord] = {}

            async def one(trial: TrialRecord) -> None:
                async with gate:
                    progress.started()
                    fork = await fork_trial(load_task(trial.task_id), trial.seed, lab, trial.run_ids[0])
                forked[trial.trial_id] = trial.model_copy(update={"counterfactual": fork})
                # The bar counts forks: each as it fared, in the time it took.
                shown = {
                    "valid": True,
                    "success": fork_succeeded(forked[trial.trial_id]),
                    "wall_time_s": fork.wall_time_s,
                }
                progress.finished(trial.model_copy(update=shown | {"infrastructure_error": fork.infrastructure_error}))

            await asyncio.gather(*(one(trial) for trial in trials))
    return forked
