"""The service's SQLite file: schema, connections, write transactions.

Every table is keyed by tenant first, so one file holds many isolated tenants (one per agent
run). Each request opens its own short connection: the HTTP server answers requests on many
threads, and a connection is never shared between them.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from ops_service.errors import Conflict

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tenants (
    tenant     TEXT PRIMARY KEY,
    seeded_at  TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS orders (
    tenant        TEXT NOT NULL,
    order_id      TEXT NOT NULL,
    customer      TEXT NOT NULL,
    amount_cents  INTEGER NOT NULL,
    PRIMARY KEY (tenant, order_id)
);
CREATE TABLE IF NOT EXISTS refunds (
    tenant           TEXT NOT NULL,
    refund_id        TEXT NOT NULL,
    order_id         TEXT NOT NULL,
    amount_cents     INTEGER NOT NULL,
    reason           TEXT NOT NULL,
    idempotency_key  TEXT NOT NULL,
    fingerprint      TEXT NOT NULL,
    created_at       TEXT NOT NULL,
    PRIMARY KEY (tenant, refund_id),
    UNIQUE (tenant, idempotency_key)
);
CREATE TABLE IF NOT EXISTS tickets (
    tenant           TEXT NOT NULL,
    ticket_id        TEXT NOT NULL,
    title            TEXT NOT NULL,
    body             TEXT NOT NULL,
    priority         TEXT NOT NULL,
    status           TEXT NOT NULL,
    idempotency_key  TEXT,  -- NULL for seeded tickets
    fingerprint      TEXT,
    created_at       TEXT NOT NULL,
    PRIMARY KEY (tenant, ticket_id),
    UNIQUE (tenant, idempotency_key)
);
CREATE TABLE IF NOT EXISTS accounts (
    tenant           TEXT NOT NULL,
    user             TEXT NOT NULL,
    email            TEXT NOT NULL,
    status           TEXT NOT NULL,
    disabled_reason  TEXT,
    disabled_at      TEXT,
    disabled_by_key  TEXT,  -- NULL unless disabled through the API
    fingerprint      TEXT,
    PRIMARY KEY (tenant, user),
    UNIQUE (tenant, disabled_by_key)
);
"""


class Database:
    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        with self.reading() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(_SCHEMA)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        db.row_factory = sqlite3.Row
        try:
            # FULL: an effect the service answered 2xx for is on disk, so the effect store
            # (also FULL) never records a result the service could lose.
            db.execute("PRAGMA synchronous=FULL")
            yield db
        finally:
            db.close()

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Connection]:
        """One IMMEDIATE transaction: it takes the write lock before the first read, so the
        idempotency check, the limit check and the insert see no concurrent writer.

        A constraint the write breaks is a Conflict (409): the request's, not an outage. As any
        other error it would be a 500, which a client retries as one (the refund tool did, for
        20 minutes, when a fork's copied rows held the id a count gave a new refund)."""
        with self.reading() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except sqlite3.IntegrityError as error:
                db.execute("ROLLBACK")
                raise Conflict(
                    f"the request conflicts with what the tenant holds ({error}): it was not applied"
                ) from None
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")
