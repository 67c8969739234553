"""Money, in integer cents."""

from __future__ import annotations


def format_price(cents: int) -> str:
    """Cents as dollars with two decimals: format_price(1250) == "$12.50"."""
    return f"${cents // 100}.{cents % 100:02d}"
