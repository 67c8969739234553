"""The nightly sales report: `python report.py days/DAY.json`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from summary import Sale, Summary, summarize


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


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python report.py days/DAY.json", file=sys.stderr)
        return 2
    path = Path(argv[0])
    sales = [Sale(**row) for row in json.loads(path.read_text(encoding="utf-8"))]
    print(render(path.stem, summarize(sales)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
