"""Prints the club's name badges, one a line: `python roster.py MEMBERS.csv`."""

from __future__ import annotations

import csv
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Member:
    name: str
    team: str


def load_members(path: Path) -> list[Member]:
    """The members listed in the CSV file at `path`, in the file's order."""
    # The first exports came from the old spreadsheet program, which wrote Latin-1.
    with path.open(newline="", encoding="latin-1") as file:
        return [Member(name=row["name"].strip(), team=row["team"].strip()) for row in csv.DictReader(file)]


def badge(member: Member) -> str:
    return f"{member.name} ({member.team})"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python roster.py MEMBERS.csv", file=sys.stderr)
        return 2
    for member in load_members(Path(argv[0])):
        print(badge(member))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
