"""Refunds against seeded orders: never more, in total, than the order's amount."""

from __future__ import annotations

import sqlite3
from typing import Any

from ops_service.bodies import RefundRequest
from ops_service.database import now
from ops_service.errors import NotFound, Unprocessable
from ops_service.idempotency import check_same_request, fingerprint, resource_id


def create_refund(db: sqlite3.Connection, tenant: str, key: str, request: RefundRequest) -> tuple[dict[str, Any], bool]:
    """The refund made under `key` and whether this call made it. Run inside a write transaction."""
    existing = db.execute("SELECT * FROM refunds WHERE tenant = ? AND idempotency_key = ?", (tenant, key)).fetchone()
    if existing is not None:
        check_same_request(existing["fingerprint"], request, key)
        return refund_json(existing), False
    order = db.execute(
        "SELECT amount_cents FROM orders WHERE tenant = ? AND order_id = ?", (tenant, request.order_id)
    ).fetchone()
    if order is None:
        raise NotFound(f"no order {request.order_id!r}")
    remaining = order["amount_cents"] - refunded_cents(db, tenant, request.order_id)
    if request.amount_cents > remaining:
        raise Unprocessable(
            f"a refund of {request.amount_cents} cents exceeds the {remaining} cents"
            f" still refundable on order {request.order_id!r}"
        )
    db.execute(
        "INSERT INTO refunds (tenant, refund_id, order_id, amount_cents, reason, idempotency_key, fingerprint,"
        " created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (
            tenant,
            resource_id("rf", key),
            request.order_id,
            request.amount_cents,
            request.reason,
            key,
            fingerprint(request),
            now(),
        ),
    )
    return refund_by_key(db, tenant, key), True


def refunds(db: sqlite3.Connection, tenant: str, order_id: str | None = None) -> list[dict[str, Any]]:
    if order_id is None:
        rows = db.execute("SELECT * FROM refunds WHERE tenant = ? ORDER BY rowid", (tenant,))
    else:
        rows = db.execute("SELECT * FROM refunds WHERE tenant = ? AND order_id = ? ORDER BY rowid", (tenant, order_id))
    return [refund_json(row) for row in rows]


def refund_by_key(db: sqlite3.Connection, tenant: str, key: str) -> dict[str, Any]:
    row = db.execute("SELECT * FROM refunds WHERE tenant = ? AND idempotency_key = ?", (tenant, key)).fetchone()
    if row is None:
        raise NotFound(f"no refund was made with idempotency key {key!r}")
    return refund_json(row)


def refunded_cents(db: sqlite3.Connection, tenant: str, order_id: str) -> int:
    row = db.execute(
        "SELECT COALESCE(SUM(amount_cents), 0) FROM refunds WHERE tenant = ? AND order_id = ?", (tenant, order_id)
    ).fetchone()
    return int(row[0])


def refund_json(row: sqlite3.Row) -> dict[str, Any]:
    fields = ("refund_id", "order_id", "amount_cents", "reason", "idempotency_key", "created_at")
    return {name: row[name] for name in fields}
