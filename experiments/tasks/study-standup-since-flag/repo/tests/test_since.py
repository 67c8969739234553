"""Acceptance tests of the request "Only the entries since a day"."""

from pathlib import Path

import pytest

from standup.__main__ import main

LOG = Path(__file__).resolve().parent.parent / "notes" / "log.csv"


def test_since_keeps_that_day_and_later(capsys):
    assert main(["--log", str(LOG), "--since", "2024-05-06"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "Mon 06 May  ana: feature flag for exports",
        "Tue 07 May  chen: database upgrade rehearsed",
        "Wed 08 May  ben: on call handover",
    ]


def test_since_after_the_last_entry_prints_nothing(capsys):
    assert main(["--log", str(LOG), "--since", "2024-06-01"]) == 0
    assert capsys.readouterr().out == ""


def test_a_day_in_another_format_is_refused(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["--log", str(LOG), "--since", "6/5/2024"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "'6/5/2024'" in captured.err
