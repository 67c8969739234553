"""A tenant forked from another: the world a forked agent run starts in.

A fork of a run after its step K must find the world as that run left it after step K, not
as it left it at its end. The service keeps no snapshots; instead every effect row carries the
idempotency key it was made under, and the caller names the keys of the effects made in
steps 1..K. The fork gets the parent's seed (its orders, its seeded tickets, its accounts as
seeded) and a copy of exactly those effects' rows, ids and times included. Nothing is created
anew: the fork's world holds the parent's refund, not a second one.

An effect the parent made under a key the caller did not name is left out; an account the
parent disabled under such a key is active again in the fork (only an active account can be
disabled through the API, so that is how it was seeded).
"""

from __future__ import annotations

import sqlite3

from ops_service.bodies import ForkRequest
from ops_service.database import now
from ops_service.errors import NotFound
from ops_service.tenants import is_seeded


def fork(db: sqlite3.Connection, tenant: str, request: ForkRequest) -> tuple[bool, list[str]]:
    """Make `tenant` from `request.parent`. Returns whether this call made it (False: it
    existed already, and nothing changed) and the named keys the parent holds no effect for.
    Run inside a write transaction."""
    if not is_seeded(db, request.parent):
        raise NotFound(f"no tenant {request.parent!r} to fork: it was never seeded")
    missing = [key for key in request.keys if not _has_effect(db, request.parent, key)]
    if is_seeded(db, tenant):
        return False, missing
    keys = set(request.keys)
    db.execute("INSERT INTO tenants (tenant, seeded_at) VALUES (?, ?)", (tenant, now()))
    db.execute(
        "INSERT INTO orders (tenant, order_id, customer, amount_cents)"
        " SELECT ?, order_id, customer, amount_cents FROM orders WHERE tenant = ? ORDER BY rowid",
        (tenant, request.parent),
    )
    for row in _rows(db, "refunds", request.parent):
        if row["idempotency_key"] in keys:
            _insert(db, "refunds", tenant, row)
    for row in _rows(db, "tickets", request.parent):
        if row["idempotency_key"] is None or row["idempotency_key"] in keys:
            _insert(db, "tickets", tenant, row)
    for row in _rows(db, "accounts", request.parent):
        if row["disabled_by_key"] is None or row["disabled_by_key"] in keys:
            _insert(db, "accounts", tenant, row)
        else:
            db.execute(
                "INSERT INTO accounts (tenant, user, email, status) VALUES (?, ?, ?, 'active')",
                (tenant, row["user"], row["email"]),
            )
    return True, missing


def _has_effect(db: sqlite3.Connection, tenant: str, key: str) -> bool:
    found = db.execute(
        "SELECT 1 FROM refunds WHERE tenant = ?1 AND idempotency_key = ?2"
        " UNION ALL SELECT 1 FROM tickets WHERE tenant = ?1 AND idempotency_key = ?2"
        " UNION ALL SELECT 1 FROM accounts WHERE tenant = ?1 AND disabled_by_key = ?2",
        (tenant, key),
    )
    return found.fetchone() is not None


# `table` is always one of this module's own names, never a caller's text.
def _rows(db: sqlite3.Connection, table: str, tenant: str) -> list[sqlite3.Row]:
    # rowid order: the fork lists its rows in the order the parent made them.
    return db.execute(f"SELECT * FROM {table} WHERE tenant = ? ORDER BY rowid", (tenant,)).fetchall()


def _insert(db: sqlite3.Connection, table: str, tenant: str, row: sqlite3.Row) -> None:
    columns = row.keys()
    values = [tenant if column == "tenant" else row[column] for column in columns]
    placeholders = ", ".join("?" for _ in columns)
    db.execute(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({placeholders})", values)
