"""An experiment's record of its runs, kept in its report directory (`record/`) once it ends:
the Temporal database its cluster's dev server wrote (every run's history) and the operations
service's (every trial's world). Megabytes, not the gigabytes of a model; what a counterfactual
of the experiment, asked for later (`of:` in a config), forks its trials from
(experiments/counterfactual_runner.py). The trials' workspaces, checkpoints and ledgers are
under the data directory already (`workspaces/`, `ledgers/`).
"""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

from contracts.errors import ConfigError

RECORD_DIR = "record"
TEMPORAL_DB, OPS_DB = "temporal.sqlite", "ops.sqlite"


def keep_record(cluster: Path, report: Path) -> Path | None:
    """Copy the stopped cluster's databases into `report/record/`; None when it wrote none."""
    target = report / RECORD_DIR
    kept = None
    for name in (TEMPORAL_DB, OPS_DB):
        if (cluster / name).is_file():
            target.mkdir(exist_ok=True)
            try:
                _copy_database(cluster / name, target / name)
            except sqlite3.Error:
                with contextlib.suppress(OSError):
                    target.rmdir()  # when nothing else is in it
                raise
            kept = target
    return kept


def restore_record(report: Path, cluster: Path) -> None:
    """The recorded databases as a new cluster's own (copies: the record stays as it was).
    ConfigError for an experiment that kept no record."""
    source = report / RECORD_DIR
    if not (source / TEMPORAL_DB).is_file():
        raise ConfigError(
            f"{report.name} kept no record of its runs ({source / TEMPORAL_DB} is missing: it ended before "
            "experiments kept one, or it was removed); run the experiment again, with `counterfactual:` "
            "in its config to fork its trials as they end"
        )
    cluster.mkdir(parents=True, exist_ok=True)
    for name in (TEMPORAL_DB, OPS_DB):
        if (source / name).is_file():
            shutil.copyfile(source / name, cluster / name)


def _copy_database(source: Path, target: Path) -> None:
    # SQLite's backup API: one consistent file, with what its write-ahead log held folded in
    # (a plain copy of the file alone could miss the last transactions).
    try:
        with closing(sqlite3.connect(source)) as reading, closing(sqlite3.connect(target)) as writing:
            reading.backup(writing)
    except sqlite3.Error:
        target.unlink(missing_ok=True)  # no half a record: a reader would take it for one
        raise
