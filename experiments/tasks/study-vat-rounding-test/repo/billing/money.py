"""Amounts of money, as Decimal euros."""

from __future__ import annotations

from decimal import Decimal

CENT = Decimal("0.01")


def to_cents(amount: Decimal) -> Decimal:
    """`amount` rounded to the cent."""
    return amount.quantize(CENT)


def euros(amount: Decimal) -> str:
    return f"{to_cents(amount)} EUR"
