"""Support tickets: seeded ones, and ones created through the API under an idempotency key."""

from __future__ import annotations

import sqlite3
from typing import Any

from ops_service.bodies import SeedTicket, TicketRequest
from ops_service.database import now
from ops_service.errors import NotFound
from ops_service.idempotency import check_same_request, fingerprint, resource_id


def create_ticket(db: sqlite3.Connection, tenant: str, key: str, request: TicketRequest) -> tuple[dict[str, Any], bool]:
    """The ticket made under `key` and whether this call made it. Run inside a write transaction."""
    existing = db.execute("SELECT * FROM tickets WHERE tenant = ? AND idempotency_key = ?", (tenant, key)).fetchone()
    if existing is not None:
        check_same_request(existing["fingerprint"], request, key)
        return ticket_json(existing), False
    _insert(db, tenant, request.title, request.body, request.priority, "open", key, fingerprint(request))
    return ticket_by_key(db, tenant, key), True


def seed_ticket(db: sqlite3.Connection, tenant: str, ticket: SeedTicket) -> None:
    _insert(db, tenant, ticket.title, ticket.body, ticket.priority, ticket.status, None, None)


def tickets(db: sqlite3.Connection, tenant: str) -> list[dict[str, Any]]:
    return [ticket_json(row) for row in db.execute("SELECT * FROM tickets WHERE tenant = ? ORDER BY rowid", (tenant,))]


def ticket_by_key(db: sqlite3.Connection, tenant: str, key: str) -> dict[str, Any]:
    row = db.execute("SELECT * FROM tickets WHERE tenant = ? AND idempotency_key = ?", (tenant, key)).fetchone()
    if row is None:
        raise NotFound(f"no ticket was created with idempotency key {key!r}")
    return ticket_json(row)


def ticket_json(row: sqlite3.Row) -> dict[str, Any]:
    fields = ("ticket_id", "title", "body", "priority", "status", "idempotency_key", "created_at")
    return {name: row[name] for name in fields}


def _insert(
    db: sqlite3.Connection,
    tenant: str,
    title: str,
    body: str,
    priority: str,
    status: str,
    key: str | None,
    request_fingerprint: str | None,
) -> None:
    if key is None:
        # A seeded ticket: seeding fills a new tenant once, so a count names no id it holds.
        count = db.execute("SELECT COUNT(*) FROM tickets WHERE tenant = ?", (tenant,)).fetchone()[0]
        ticket_id = f"tk_{count + 1}"
    else:
        ticket_id = resource_id("tk", key)
    db.execute(
        "INSERT INTO tickets (tenant, ticket_id, title, body, priority, status, idempotency_key, fingerprint,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (tenant, ticket_id, title, body, priority, status, key, request_fingerprint, now()),
    )
