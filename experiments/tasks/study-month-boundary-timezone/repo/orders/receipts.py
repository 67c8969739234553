"""The receipt printed for an order."""

from __future__ import annotations

from orders.config import SHOP_TIMEZONE
from orders.model import Order


def receipt_header(order: Order) -> str:
    placed = order.placed_at.astimezone(SHOP_TIMEZONE)
    return f"Order {order.order_id}, {placed:%d.%m.%Y %H:%M}"
