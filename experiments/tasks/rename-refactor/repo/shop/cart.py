"""A shopping cart that knows its total."""

from __future__ import annotations

from shop.pricing import LineItem, calc_total


class Cart:
    def __init__(self, tax_rate: float = 0.0) -> None:
        self.tax_rate = tax_rate
        self.items: list[LineItem] = []
        self.discount_cents = 0

    def add(self, sku: str, unit_cents: int, quantity: int = 1) -> None:
        self.items.append(LineItem(sku, unit_cents, quantity))

    def apply_discount(self, cents: int) -> None:
        self.discount_cents += cents

    def total_cents(self) -> int:
        return calc_total(self.items, self.tax_rate, self.discount_cents)
