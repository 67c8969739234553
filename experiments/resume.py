"""Experiments that outlast their process: what an experiment records as it starts
(`experiment.json`: its id, config and each part's provenance), and how a later
`experiment run --resume DIR` finds what is left to run.

A part is one process's share of an experiment, from its start to its end (a report, Ctrl-C, a
SIGKILL, a machine that went away). A trial is finished when its line is in `trials.jsonl`; a
resumed part runs the others, and nothing finished twice. It refuses when the code or the config
differ from the first part's, since one report would then mix two instruments; a person may
allow a change of code, and the report names it.

A trial run again in a later part gets identities of its own (`TrialSpec.identity`): the run ids,
workspaces, ledgers and the world of the attempt that was cut short are left as they were, never
continued by the new one.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import BaseModel, ValidationError

if TYPE_CHECKING:
    from collections.abc import Iterable

    from temporalio.client import Client

    from experiments.trials import TrialSpec

from contracts.errors import ConfigError
from experiments.config import ExperimentConfig
from experiments.provenance import Provenance, config_digest
from experiments.record import RECORD_DIR, TEMPORAL_DB, restore_record
from experiments.trial_record import TrialRecord

START_JSON = "experiment.json"
TRIALS_JSONL = "trials.jsonl"


class Part(BaseModel):
    """One process's share of an experiment."""

    started: datetime
    provenance: Provenance
    # Trials finished in earlier parts when this one started.
    trials_before: int = 0
    # This part runs code other than the first part's (allowed with --allow-commit-change).
    code_changed: bool = False


class ExperimentStart(BaseModel):
    """`experiment.json`: written when an experiment starts, a part added on every resume."""

    experiment_id: str
    config: ExperimentConfig
    parts: list[Part]

    @property
    def started(self) -> datetime:
        return self.parts[0].started


def write_start(directory: Path, start: ExperimentStart) -> None:
    path = directory / START_JSON
    scratch = path.with_suffix(".json.new")
    scratch.write_text(start.model_dump_json(indent=2) + "\n", encoding="utf-8")
    scratch.replace(path)  # whole or not at all: a resume must be able to read it


def read_start(directory: Path) -> ExperimentStart:
    path = directory / START_JSON
    if not path.is_file():
        raise ConfigError(
            f"--resume {directory}: no {START_JSON} there: not an experiment's directory, or one started "
            "before experiments could be resumed"
        )
    try:
        return ExperimentStart.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as error:
        raise ConfigError(f"--resume {directory}: {path.name} cannot be read ({type(error).__name__})") from None


def finished_trials(directory: Path) -> list[TrialRecord]:
    """The trials `trials.jsonl` holds. A last line cut short (the process was killed while it
    wrote it) is not a trial: it is dropped from the file, and that trial runs again."""
    path = directory / TRIALS_JSONL
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    records: list[TrialRecord] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            records.append(TrialRecord.model_validate_json(line))
        except ValidationError:
            if number == len(lines) and not line.endswith("\n"):
                path.write_text("".join(lines[:-1]), encoding="utf-8")
                break
            raise ConfigError(f"{path}:{number}: not a trial record; the file was changed by hand") from None
    return records


def resumed_part(
    start: ExperimentStart, asked: ExperimentConfig | None, now: Provenance, allow_code_change: bool, finished: int
) -> Part:
    """The new part, once its config and code are shown to be the first part's. ConfigError
    (one line) when they are not."""
    first = start.parts[0].provenance
    if asked is not None and config_digest(asked) != first.config_sha256:
        raise ConfigError(
            f"the config differs from the one experiment {start.experiment_id} started with (sha256 "
            f"{config_digest(asked)[:12]} against {first.config_sha256[:12]}): resume it without --config, "
            "or start a new experiment"
        )
    changed = _code_change(first, now)
    if changed and not allow_code_change:
        raise ConfigError(
            f"experiment {start.experiment_id} ran {changed}: one report would mix two versions of the lab; "
            f"check out {first.commit[:12]} with a clean tree, or pass --allow-commit-change (the report names it)"
        )
    return Part(started=datetime.now(UTC), provenance=now, trials_before=finished, code_changed=bool(changed))


def _code_change(first: Provenance, now: Provenance) -> str:
    if now.commit != first.commit:
        return f"commit {first.commit[:12]}, this checkout is {now.commit[:12]}"
    # The same file names could hold other changes: what ran cannot be shown to be the same.
    if first.dirty:
        return f"commit {first.commit[:12]} with uncommitted changes"
    if now.dirty:
        shown = ", ".join(now.uncommitted[:3]) + (", ..." if len(now.uncommitted) > 3 else "")
        return f"commit {first.commit[:12]}, and this checkout has uncommitted changes ({shown})"
    return ""


def prepare_cluster(directory: Path, scratch: Path) -> None:
    """The resumed part's cluster continues the databases of the parts before (every run's
    history and world, which a counterfactual asked for later forks): those a killed part left
    in its scratch directory, else the record a part that ended kept. The rest of a killed
    part's scratch (its fault book, its baseline's files) is not carried over."""
    cluster = scratch / "cluster"
    left = (cluster / TEMPORAL_DB).is_file()
    if scratch.exists():
        for path in scratch.iterdir():
            if path != cluster or not left:
                _remove(path)
    if not left and (directory / RECORD_DIR / TEMPORAL_DB).is_file():
        restore_record(directory, cluster)


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


async def stop_cut_short(client: Client) -> None:
    """In a resumed part: the runs a killed part left running are ended before any worker takes
    them up again (their trials run again, under identities of their own)."""
    async for execution in client.list_workflows("ExecutionStatus = 'Running'"):
        handle = client.get_workflow_handle(execution.id, run_id=execution.run_id)
        await handle.terminate(reason="the experiment was resumed: this trial runs again from its start")


def unfinished(planned: Iterable[TrialSpec], finished: Iterable[TrialRecord]) -> list[TrialSpec]:
    """The trials `planned` that `finished` does not hold (by trial id): what a resume runs."""
    done = {record.trial_id for record in finished}
    return [spec for spec in planned if spec.trial_id not in done]
