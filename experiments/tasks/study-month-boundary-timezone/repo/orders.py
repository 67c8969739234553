"""The shop's orders: receipts and monthly sales totals for the books."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

# Shop time: Berlin in summer. The books close at midnight shop time, not UTC.
SHOP_TIMEZONE = timezone(timedelta(hours=2), "CEST")


@dataclass(frozen=True)
class Order:
    order_id: str
    placed_at: datetime  # aware, in UTC
    amount_cents: int


def parse_time(text: str) -> datetime:
    """The till's UTC timestamps, e.g. "2024-06-30T22:30:00Z"."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def receipt_header(order: Order) -> str:
    placed = order.placed_at.astimezone(SHOP_TIMEZONE)
    return f"Order {order.order_id}, {placed:%d.%m.%Y %H:%M}"


def month_of(order: Order) -> str:
    """The month, as "YYYY-MM", whose books the order belongs to."""
    return f"{order.placed_at:%Y-%m}"


def monthly_totals(orders: list[Order]) -> dict[str, int]:
    """Cents sold per month, months in order."""
    totals: dict[str, int] = defaultdict(int)
    for order in orders:
        totals[month_of(order)] += order.amount_cents
    return dict(sorted(totals.items()))
