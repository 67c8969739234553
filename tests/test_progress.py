"""The experiment's progress display: a live bar on a terminal, plain lines anywhere else; the
same counts in both, and an estimate of the time left from finished trials only."""

from __future__ import annotations

import io
import re
import sys

import pytest
from rich.console import Console

from experiments.config import FaultKind
from experiments.progress import Tally, TrialProgress
from experiments.trial_record import TrialRecord

ESCAPE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def trial(**changes: object) -> TrialRecord:
    record = TrialRecord(
        experiment_id="quick",
        trial_id="quick-rename-refactor-durable-none-0",
        task_id="rename-refactor",
        runtime="durable",
        scenario="none",
        fault_kind=FaultKind.NONE,
        trial_index=0,
        seed=0,
        success=True,
        wall_time_s=8.0,
    )
    return record.model_copy(update=changes)


def screen(output: io.StringIO) -> str:
    """What the terminal shows now: the last frame the live display drew, without its escapes."""
    frames = re.split(r"\r?\x1b\[2K(?:\x1b\[1A\x1b\[2K)*", output.getvalue())
    return ESCAPE.sub("", frames[-1]).strip()


def test_the_estimate_comes_from_finished_trials_only() -> None:
    tally = Tally(total=5, concurrency=2)
    tally.running = 2
    assert tally.eta_s() is None  # nothing finished: start-up time says nothing of a trial
    tally.count(trial(wall_time_s=6.0))
    assert tally.eta_s() == pytest.approx(4 * 6.0 / 2)
    for seconds in (10.0, 8.0, 8.0):
        tally.count(trial(wall_time_s=seconds))
    # One trial left runs alone, whatever the concurrency.
    assert tally.eta_s() == pytest.approx(8.0)
    tally.count(trial())
    assert tally.eta_s() == 0.0


def test_a_terminal_gets_a_live_bar_from_the_start() -> None:
    clock, output = Clock(), io.StringIO()
    console = Console(file=output, force_terminal=True, width=80)
    with TrialProgress(4, concurrency=2, console=console, clock=clock) as progress:
        progress.status("starting the cluster")
        shown = screen(output)
        assert "starting the cluster" in shown and "0/4" in shown and "eta -:--:--" in shown

        progress.status("running trials")
        progress.started()
        progress.started()
        clock.now += 20
        progress.finished(trial(wall_time_s=8.0))
        progress.started()
        shown = screen(output)
        assert "1/4" in shown and "elapsed 0:00:20" in shown
        assert "2 running, 0 failed, 0 infrastructure errors, 0 invalid" in shown
        # 3 left at 8 s each, 2 at a time; not the 20 s the cluster's start-up took.
        assert "eta 0:00:12" in shown

        clock.now += 5
        progress.finished(trial(success=False))
        assert "2/4" in screen(output) and "eta 0:00:08" in screen(output)  # 2 left, 8 s each, 2 at once
        progress.finished(trial(infrastructure_error="RuntimeError: the cluster has no client"))
        progress.finished(trial(valid=False, invalid_reason="configured fault did not fire: kill"))
        progress.status("done")

    shown = screen(output)
    assert "done" in shown and "4/4" in shown
    assert "0 running, 1 failed, 1 infrastructure errors, 1 invalid" in shown
    assert all(len(line) <= 80 for line in shown.splitlines()), shown


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("stderr_is_a_terminal", [False, True], ids=["log-file", "only-stderr-a-terminal"])
def test_anywhere_else_one_plain_line_per_finished_trial(
    stderr_is_a_terminal: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A pipe or a log file (stdout here, captured) gets lines without control characters, even
    with FORCE_COLOR set, as CI runners often do."""
    monkeypatch.setenv("FORCE_COLOR", "1")
    stderr = _Terminal() if stderr_is_a_terminal else None
    if stderr is not None:
        monkeypatch.setattr(sys, "stderr", stderr)
    clock = Clock()
    with TrialProgress(3, concurrency=1, clock=clock) as progress:
        progress.status("starting the cluster")
        progress.started()
        clock.now += 15
        progress.finished(trial(wall_time_s=5.0))
        progress.started()
        progress.finished(trial(runtime="baseline", trial_index=1, infrastructure_error="boom"))
        progress.started()
        progress.finished(trial(runtime="baseline", valid=False, scenario="never"))

    written = stderr.getvalue() if stderr is not None else capsys.readouterr().err
    assert "\x1b" not in written and "\r" not in written
    lines = written.splitlines()
    assert lines[0] == "starting the cluster"
    assert len(lines) == 4, lines
    first, second, third = lines[1:]
    assert first.split()[:4] == ["1/3", "ok", "durable", "rename-refactor"]
    assert "0 running, 0 failed, 0 infrastructure errors, 0 invalid" in first
    assert "elapsed 0:00:15" in first and "eta 0:00:10" in first
    assert second.split()[:3] == ["2/3", "INFR", "baseline"] and "1 infrastructure errors" in second
    assert third.split()[:3] == ["3/3", "INVL", "baseline"]
    assert "0 failed, 1 infrastructure errors, 1 invalid" in third and "eta 0:00:00" in third
