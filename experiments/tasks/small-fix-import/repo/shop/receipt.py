"""The lines of a receipt."""

from __future__ import annotations

from shop.money import format_cents


def receipt_line(item: str, cents: int) -> str:
    return f"{item}: {format_cents(cents)}"
