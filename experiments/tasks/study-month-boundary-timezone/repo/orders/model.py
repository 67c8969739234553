"""An order as the till stores it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class Order:
    order_id: str
    placed_at: datetime  # aware, in UTC
    amount_cents: int


def parse_time(text: str) -> datetime:
    """The till's UTC timestamps, e.g. "2024-06-30T22:30:00Z"."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
