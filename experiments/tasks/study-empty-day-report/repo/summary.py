"""The figures of one day's sales."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass


@dataclass(frozen=True)
class Sale:
    product: str
    amount_cents: int


@dataclass(frozen=True)
class Summary:
    orders: int
    revenue_cents: int
    average_cents: int
    # The product sold most often; None on a day without sales.
    best_seller: str | None


def summarize(sales: list[Sale]) -> Summary:
    revenue = sum(sale.amount_cents for sale in sales)
    counts = Counter(sale.product for sale in sales)
    best_seller = max(counts, key=counts.__getitem__)
    return Summary(
        orders=len(sales),
        revenue_cents=revenue,
        average_cents=revenue // len(sales),
        best_seller=best_seller,
    )
