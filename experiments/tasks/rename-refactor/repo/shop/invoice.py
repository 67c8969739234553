"""Plain-text invoices."""

from __future__ import annotations

from shop.pricing import LineItem, calc_total


def render_invoice(customer: str, items: list[LineItem], tax_rate: float = 0.0) -> str:
    lines = [f"Invoice for {customer}"]
    for item in items:
        lines.append(f"  {item.sku:<12} {item.quantity:>3} x {item.unit_cents / 100:>8.2f}")
    total = calc_total(items, tax_rate)
    lines.append(f"  {'TOTAL':<12} {total / 100:>18.2f}")
    return "\n".join(lines)
