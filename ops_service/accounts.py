"""User accounts: seeded active or disabled; disabled through the API once, under a key."""

from __future__ import annotations

import sqlite3
from typing import Any

from ops_service.bodies import DisableRequest, SeedAccount
from ops_service.database import now
from ops_service.errors import Conflict, NotFound
from ops_service.idempotency import check_same_request, fingerprint


def disable_account(
    db: sqlite3.Connection, tenant: str, key: str, request: DisableRequest
) -> tuple[dict[str, Any], bool]:
    """The account disabled under `key` and whether this call disabled it. Run inside a write transaction."""
    existing = db.execute("SELECT * FROM accounts WHERE tenant = ? AND disabled_by_key = ?", (tenant, key)).fetchone()
    if existing is not None:
        check_same_request(existing["fingerprint"], request, key)
        return account_json(existing), False
    account = _row(db, tenant, request.user)
    if account["status"] == "disabled":
        raise Conflict(f"account {request.user!r} is already disabled")
    db.execute(
        "UPDATE accounts SET status = 'disabled', disabled_reason = ?, disabled_at = ?, disabled_by_key = ?,"
        " fingerprint = ? WHERE tenant = ? AND user = ?",
        (request.reason, now(), key, fingerprint(request), tenant, request.user),
    )
    return account_json(_row(db, tenant, request.user)), True


def seed_account(db: sqlite3.Connection, tenant: str, account: SeedAccount) -> None:
    db.execute(
        "INSERT INTO accounts (tenant, user, email, status) VALUES (?, ?, ?, ?)",
        (tenant, account.user, account.email, account.status),
    )


def account(db: sqlite3.Connection, tenant: str, user: str) -> dict[str, Any]:
    return account_json(_row(db, tenant, user))


def accounts(db: sqlite3.Connection, tenant: str) -> list[dict[str, Any]]:
    rows = db.execute("SELECT * FROM accounts WHERE tenant = ? ORDER BY rowid", (tenant,))
    return [account_json(row) for row in rows]


def account_disabled_by_key(db: sqlite3.Connection, tenant: str, key: str) -> dict[str, Any]:
    row = db.execute("SELECT * FROM accounts WHERE tenant = ? AND disabled_by_key = ?", (tenant, key)).fetchone()
    if row is None:
        raise NotFound(f"no account was disabled with idempotency key {key!r}")
    return account_json(row)


def account_json(row: sqlite3.Row) -> dict[str, Any]:
    fields = ("user", "email", "status", "disabled_reason", "disabled_at", "disabled_by_key")
    return {name: row[name] for name in fields}


def _row(db: sqlite3.Connection, tenant: str, user: str) -> sqlite3.Row:
    row = db.execute("SELECT * FROM accounts WHERE tenant = ? AND user = ?", (tenant, user)).fetchone()
    if row is None:
        raise NotFound(f"no account {user!r}")
    return row
