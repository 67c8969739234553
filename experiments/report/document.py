"""`results.json` (`ResultsDocument`) and the names of the report directory's files."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field, ValidationError

from contracts.errors import ReportError
from experiments.config import ExperimentConfig
from experiments.metrics import ExperimentResults
from experiments.provenance import Provenance
from experiments.resume import Part
from experiments.trial_record import TrialRecord

REPORT_MD = "report.md"
RESULTS_JSON = "results.json"
TRIALS_JSONL = "trials.jsonl"


class ResultsDocument(BaseModel):
    """`results.json`."""

    experiment_id: str
    started: datetime
    finished: datetime
    config: ExperimentConfig
    trials_file: str = TRIALS_JSONL
    results: ExperimentResults
    # Why the experiment ended before its last trial (the lab broke: its model server went
    # away), or "" when every planned trial ran.
    stopped_early: str = ""
    # For counterfactuals of an experiment recorded earlier: its id. The trials are its own; the
    # forks (`TrialRecord.counterfactual`) were made here.
    forks_of: str = ""
    # What produced the figures (experiments.provenance); None in results that predate it.
    provenance: Provenance | None = None
    # The parts it ran in (experiments.resume): one for an experiment never resumed; none in
    # results that predate them.
    parts: list[Part] = Field(default_factory=list)


def read_results(directory: Path) -> ResultsDocument:
    path = directory / RESULTS_JSON
    try:
        return ResultsDocument.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReportError(f"{path}: cannot read: {error.strerror}") from None
    except ValidationError as error:
        raise ReportError(f"{path}: not a results file ({error.error_count()} problems)") from None


def read_trials(path: Path) -> list[TrialRecord]:
    """`trials.jsonl`: one TrialRecord a line. ReportError for a file that is not one."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise ReportError(f"{path}: cannot read: {error.strerror}") from None
    try:
        return [TrialRecord.model_validate_json(line) for line in lines if line.strip()]
    except ValidationError as error:
        raise ReportError(f"{path}: not a trials file ({error.error_count()} problems)") from None


def latest_report(reports_dir: Path) -> Path | None:
    """The report directory under `reports_dir` written last, or None."""
    written = sorted(reports_dir.glob(f"*/{RESULTS_JSON}"), key=lambda path: path.stat().st_mtime)
    return written[-1].parent if written else None
