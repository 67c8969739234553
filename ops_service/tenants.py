"""Tenants: seeded once with orders, accounts and tickets; read whole by graders."""

from __future__ import annotations

import sqlite3
from typing import Any

from ops_service import accounts, payments, tickets
from ops_service.bodies import Seed
from ops_service.database import now


def seed(db: sqlite3.Connection, tenant: str, data: Seed) -> bool:
    """Seed a tenant; False (and nothing changed) if it was seeded before. Run inside a write transaction."""
    if is_seeded(db, tenant):
        return False
    db.execute("INSERT INTO tenants (tenant, seeded_at) VALUES (?, ?)", (tenant, now()))
    for order in data.orders:
        db.execute(
            "INSERT INTO orders (tenant, order_id, customer, amount_cents) VALUES (?, ?, ?, ?)",
            (tenant, order.order_id, order.customer, order.amount_cents),
        )
    for account in data.accounts:
        accounts.seed_account(db, tenant, account)
    for ticket in data.tickets:
        tickets.seed_ticket(db, tenant, ticket)
    return True


def is_seeded(db: sqlite3.Connection, tenant: str) -> bool:
    return db.execute("SELECT 1 FROM tenants WHERE tenant = ?", (tenant,)).fetchone() is not None


def state(db: sqlite3.Connection, tenant: str) -> dict[str, Any]:
    """Everything the tenant holds, as a grader judges an end state: a duplicate refund is two rows."""
    orders = [
        {
            "order_id": row["order_id"],
            "customer": row["customer"],
            "amount_cents": row["amount_cents"],
            "refunded_cents": payments.refunded_cents(db, tenant, row["order_id"]),
        }
        for row in db.execute("SELECT * FROM orders WHERE tenant = ? ORDER BY rowid", (tenant,))
    ]
    return {
        "tenant": tenant,
        "seeded": is_seeded(db, tenant),
        "orders": orders,
        "refunds": payments.refunds(db, tenant),
        "tickets": tickets.tickets(db, tenant),
        "accounts": accounts.accounts(db, tenant),
    }
