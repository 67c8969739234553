from datetime import date
from pathlib import Path

from standup.__main__ import main
from standup.log import Entry, format_entry, read_log

LOG = Path(__file__).resolve().parent.parent / "notes" / "log.csv"


def test_read_log_oldest_first():
    entries = read_log(LOG)
    assert entries[0] == Entry(date(2024, 5, 2), "ana", "release notes drafted")
    assert [entry.day for entry in entries] == sorted(entry.day for entry in entries)


def test_read_log_since_a_day():
    assert [entry.who for entry in read_log(LOG, since=date(2024, 5, 7))] == ["chen", "ben"]


def test_format_entry():
    assert format_entry(Entry(date(2024, 5, 6), "ana", "flags")) == "Mon 06 May  ana: flags"


def test_every_entry_is_printed(capsys):
    assert main(["--log", str(LOG)]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
