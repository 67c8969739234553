"""Writing an experiment's report directory, or drawing `report.md` and the plots again from
its raw files."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from experiments.config import ExperimentConfig
from experiments.metrics import summarize
from experiments.plots import write_plots
from experiments.provenance import Provenance
from experiments.report.document import (
    REPORT_MD,
    RESULTS_JSON,
    TRIALS_JSONL,
    ResultsDocument,
    read_results,
    read_trials,
)
from experiments.report.markdown import markdown_report
from experiments.resume import Part, finished_trials, read_start, unfinished
from experiments.trial_record import TrialRecord


def write_report(
    directory: Path,
    config: ExperimentConfig,
    experiment_id: str,
    trials: Sequence[TrialRecord],
    started: datetime,
    finished: datetime,
    *,
    stopped_early: str = "",
    forks_of: str = "",
    provenance: Provenance | None = None,
    parts: Sequence[Part] = (),
) -> Path:
    """Write the whole report directory; returns the path of `report.md`. `stopped_early`: why
    the trials recorded are fewer than the config's; `forks_of`: the experiment whose trials
    these are, for counterfactuals of it made later; `provenance`: what produced them, recorded
    as the experiment started; `parts`: the parts it ran in, when it was resumed."""
    directory.mkdir(parents=True, exist_ok=True)
    records = list(trials)
    (directory / TRIALS_JSONL).write_text("".join(r.model_dump_json() + "\n" for r in records), encoding="utf-8")
    document = ResultsDocument(
        experiment_id=experiment_id,
        started=started,
        finished=finished,
        config=config,
        results=summarize(records, config),
        stopped_early=stopped_early,
        forks_of=forks_of,
        provenance=provenance,
        parts=list(parts),
    )
    (directory / RESULTS_JSON).write_text(document.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return _write_document(directory, document, records)


def rewrite_report(directory: Path) -> Path:
    """`report.md` and the plots again, from the raw files beside them (`results.json` for the
    configuration and times, `trials.jsonl` for the figures, recomputed)."""
    document = read_results(directory)
    records = read_trials(directory / document.trials_file)
    update: dict[str, object] = {"results": summarize(records, document.config)}
    if document.stopped_early:
        from experiments.runner import plan_trials  # the runner brings the trials' machinery

        if not unfinished(plan_trials(document.config, document.experiment_id), records):
            # A part's stop, copied in beside the trials of the parts after it: no longer so.
            update["stopped_early"] = ""
    document = document.model_copy(update=update)
    (directory / RESULTS_JSON).write_text(document.model_dump_json(indent=2) + "\n", encoding="utf-8")
    return _write_document(directory, document, records)


def report_cut_short(directory: Path) -> Path:
    """The report of an experiment cut short before it could write one (killed, or its machine
    went down), from what it started with (`experiment.json`) and the trials it recorded; it says
    how many of its trials ran, and how to run the rest."""
    from experiments.runner import plan_trials  # the runner brings the trials' machinery

    start = read_start(directory)
    trials = finished_trials(directory)
    planned = len(plan_trials(start.config, start.experiment_id))
    trials_file = directory / TRIALS_JSONL
    ended = trials_file.stat().st_mtime if trials_file.is_file() else start.parts[-1].started.timestamp()
    return write_report(
        directory,
        start.config,
        start.experiment_id,
        trials,
        start.parts[0].started,
        datetime.fromtimestamp(ended, UTC),
        stopped_early=(
            f"cut short before it wrote its report; {len(trials)} of {planned} trials ran "
            f"(`experiment run --resume {directory}` runs the rest)"
        ),
        provenance=start.parts[0].provenance,
        parts=start.parts,
    )


def _write_document(directory: Path, document: ResultsDocument, records: list[TrialRecord]) -> Path:
    # report.md first: the tables stand even if a plot cannot be drawn.
    path = directory / REPORT_MD
    path.write_text(markdown_report(document, records), encoding="utf-8")
    write_plots(directory, document.results, records)
    return path
