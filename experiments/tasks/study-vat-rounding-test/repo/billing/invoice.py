"""An invoice and its amounts."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from billing.money import to_cents


@dataclass(frozen=True)
class Line:
    description: str
    net: Decimal
    vat_rate: Decimal  # e.g. Decimal("0.19")

    @property
    def vat(self) -> Decimal:
        return to_cents(self.net * self.vat_rate)


@dataclass
class Invoice:
    lines: list[Line] = field(default_factory=list)

    @property
    def net(self) -> Decimal:
        return sum((to_cents(line.net) for line in self.lines), Decimal("0"))

    @property
    def vat(self) -> Decimal:
        return sum((line.vat for line in self.lines), Decimal("0"))

    @property
    def total(self) -> Decimal:
        return self.net + self.vat
