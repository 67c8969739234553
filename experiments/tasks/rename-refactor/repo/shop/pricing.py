"""Prices in integer cents, so totals never drift."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class LineItem:
    sku: str
    unit_cents: int
    quantity: int = 1

    @property
    def subtotal_cents(self) -> int:
        return self.unit_cents * self.quantity


def calc_total(items: list[LineItem], tax_rate: float = 0.0, discount_cents: int = 0) -> int:
    """Total in cents: subtotal, minus a discount (never below zero), plus tax rounded half up."""
    subtotal = sum(item.subtotal_cents for item in items)
    discounted = max(0, subtotal - discount_cents)
    tax = int(discounted * tax_rate + 0.5)
    return discounted + tax
