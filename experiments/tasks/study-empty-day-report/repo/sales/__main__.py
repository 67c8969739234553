"""`python -m sales days/DAY.json`: print that day's report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from sales.report import render
from sales.summary import Sale, summarize


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m sales days/DAY.json", file=sys.stderr)
        return 2
    path = Path(argv[0])
    sales = [Sale(**row) for row in json.loads(path.read_text(encoding="utf-8"))]
    print(render(path.stem, summarize(sales)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
