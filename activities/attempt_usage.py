"""What failed attempts of a model call cost, so a run's usage counts every attempt.

Temporal retries a failed activity as a new attempt, maybe on another worker, and the failed
attempt's result (and its token counts) is gone. Each failed attempt records its usage here
(SQLite under the data directory: agent.dependencies.Dependencies.attempts, handed in by the
activity); the attempt that succeeds adds up the earlier ones of the same activity and returns
them with its own. (The baseline reads a failure's usage from the error itself.)
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
from functools import cache
from pathlib import Path

from temporalio import activity

from contracts import Usage

_SCHEMA = """
CREATE TABLE IF NOT EXISTS failed_attempts (
    workflow_id TEXT NOT NULL,
    activity_id TEXT NOT NULL,
    attempt     INTEGER NOT NULL,
    usage       TEXT NOT NULL,
    PRIMARY KEY (workflow_id, activity_id, attempt)
)
"""


async def record_failed(path: Path, usage: Usage) -> None:
    info = activity.info()
    row = (info.workflow_id or "", info.activity_id, info.attempt, usage.model_dump_json())
    await asyncio.to_thread(_execute, path, "INSERT OR REPLACE INTO failed_attempts VALUES (?, ?, ?, ?)", row)


async def earlier_failures(path: Path) -> Usage:
    """The summed usage of this activity's earlier, failed attempts."""
    if activity.info().attempt == 1:
        return Usage()
    info = activity.info()
    rows = await asyncio.to_thread(
        _query,
        path,
        "SELECT usage FROM failed_attempts WHERE workflow_id = ? AND activity_id = ? AND attempt < ?",
        (info.workflow_id or "", info.activity_id, info.attempt),
    )
    total = Usage()
    for (raw,) in rows:
        total += Usage.model_validate_json(raw)
    return total


def _execute(path: Path, sql: str, row: tuple[object, ...]) -> None:
    with contextlib.closing(_connect(path)) as db, db:
        db.execute(sql, row)


def _query(path: Path, sql: str, row: tuple[object, ...]) -> list[tuple[str]]:
    with contextlib.closing(_connect(path)) as db:
        return db.execute(sql, row).fetchall()


def _connect(path: Path) -> sqlite3.Connection:
    _create(path)
    return sqlite3.connect(path, timeout=30)


@cache
def _create(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.closing(sqlite3.connect(path, timeout=30)) as db, db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute(_SCHEMA)
