"""Sales totals per month, for the books."""

from __future__ import annotations

from collections import defaultdict

from orders.model import Order


def month_of(order: Order) -> str:
    """The month, as "YYYY-MM", whose books the order belongs to."""
    return f"{order.placed_at:%Y-%m}"


def monthly_totals(orders: list[Order]) -> dict[str, int]:
    """Cents sold per month, months in order."""
    totals: dict[str, int] = defaultdict(int)
    for order in orders:
        totals[month_of(order)] += order.amount_cents
    return dict(sorted(totals.items()))
