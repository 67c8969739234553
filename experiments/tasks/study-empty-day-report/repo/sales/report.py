"""The report's text."""

from __future__ import annotations

from sales.summary import Summary


def money(cents: int) -> str:
    return f"{cents // 100}.{cents % 100:02d}"


def render(day: str, summary: Summary) -> str:
    return "\n".join(
        [
            f"Sales report for {day}",
            f"orders: {summary.orders}",
            f"revenue: {money(summary.revenue_cents)}",
            f"average order: {money(summary.average_cents)}",
            f"best seller: {summary.best_seller or 'none'}",
        ]
    )
