"""Reading the stand-up log."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from datetime import date
from pathlib import Path

LOG_PATH = Path("notes/log.csv")


@dataclass(frozen=True)
class Entry:
    day: date
    who: str
    note: str


def read_log(path: Path, since: date | None = None) -> list[Entry]:
    """The log's entries, oldest first; with `since`, only those of that day and later."""
    with path.open(newline="", encoding="utf-8") as file:
        entries = [Entry(date.fromisoformat(row["day"]), row["who"], row["note"]) for row in csv.DictReader(file)]
    kept = [entry for entry in entries if since is None or entry.day >= since]
    return sorted(kept, key=lambda entry: entry.day)


def format_entry(entry: Entry) -> str:
    return f"{entry.day:%a %d %b}  {entry.who}: {entry.note}"
