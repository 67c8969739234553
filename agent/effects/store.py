"""The effect store: a durable record, per idempotency key, of the intent to act and of the
effect once it happened. SQLite in WAL mode under the data directory.

    no row            never attempted: record the intent, then act
    state = intent    attempted, outcome unknown (the worker may have died mid-effect):
                      ask the target system (the tool's probe) before acting again
    state = done      acted: return the recorded result, never act again
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from contracts import ToolResult

_SCHEMA = """
CREATE TABLE IF NOT EXISTS effects (
    key        TEXT PRIMARY KEY,
    run_id     TEXT NOT NULL,
    step       INTEGER NOT NULL,
    tool       TEXT NOT NULL,
    arguments  TEXT NOT NULL,
    state      TEXT NOT NULL CHECK (state IN ('intent', 'done')),
    result     TEXT,
    intent_at  REAL NOT NULL,
    done_at    REAL
)
"""


@dataclass(frozen=True)
class EffectRecord:
    key: str
    tool: str
    state: str
    result: ToolResult | None

    @property
    def done(self) -> bool:
        return self.state == "done"


class EffectStore:
    """Blocking SQLite calls; async code runs them in a thread."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)

    def lookup(self, key: str) -> EffectRecord | None:
        with self._connect() as db:
            row = db.execute("SELECT key, tool, state, result FROM effects WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        result = ToolResult.model_validate_json(row[3]) if row[3] else None
        return EffectRecord(key=row[0], tool=row[1], state=row[2], result=result)

    def record_intent(self, key: str, run_id: str, step: int, tool: str, arguments: str) -> None:
        with self._connect() as db:
            db.execute(
                "INSERT OR IGNORE INTO effects (key, run_id, step, tool, arguments, state, intent_at)"
                " VALUES (?, ?, ?, ?, ?, 'intent', ?)",
                (key, run_id, step, tool, arguments, time.time()),
            )

    def record_effect(self, key: str, result: ToolResult) -> None:
        with self._connect() as db:
            db.execute(
                "UPDATE effects SET state = 'done', result = ?, done_at = ? WHERE key = ?",
                (result.model_dump_json(), time.time(), key),
            )

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        # One short connection per call: safe from any thread, nothing held between calls.
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            # FULL: an effect recorded is on disk before the call returns.
            db.execute("PRAGMA synchronous=FULL")
            yield db
        finally:
            db.close()
