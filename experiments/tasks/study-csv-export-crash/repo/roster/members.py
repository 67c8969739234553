"""Reading the member list."""

from __future__ import annotations

import csv
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
