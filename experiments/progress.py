"""What an experiment shows while it runs, on stderr: a live bar (rich) when a person watches a
terminal, one plain line per finished trial otherwise (a pipe, a log file, CI).

Both say the same: trials done of all, running now, failures so far (failed, infrastructure
errors, invalid), time elapsed, and an estimate of the time left from finished trials only.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import timedelta
from types import TracebackType
from typing import Any

from rich import progress as rich_progress
from rich.console import Console, RenderableType
from rich.table import Column
from rich.text import Text

from experiments.trial_record import TrialRecord


@dataclass
class Tally:
    """The trials so far."""

    total: int
    concurrency: int
    done: int = 0
    running: int = 0
    failed: int = 0
    infrastructure_errors: int = 0
    invalid: int = 0
    wall_time_s: float = 0.0

    def count(self, trial: TrialRecord) -> str:
        """Count a finished trial; returns its mark: ok, fail, INFR or INVL."""
        self.done += 1
        self.running = max(self.running - 1, 0)
        self.wall_time_s += trial.wall_time_s
        if not trial.valid:
            self.invalid += 1
            return "INVL"
        if trial.infrastructure_error:
            self.infrastructure_errors += 1
            return "INFR"
        if not trial.success:
            self.failed += 1
            return "fail"
        return "ok"

    def eta_s(self) -> float | None:
        """The trials left times the mean wall time of a finished one, over the trials that can
        run at once. None before the first trial ends: the cluster's start-up says nothing."""
        if not self.done:
            return None
        left = self.total - self.done
        if left <= 0:
            return 0.0
        return left * (self.wall_time_s / self.done) / min(self.concurrency, left)

    def counts(self) -> str:
        return (
            f"{self.running} running, {self.failed} failed, "
            f"{self.infrastructure_errors} infrastructure errors, {self.invalid} invalid"
        )


class TrialProgress:
    """`with TrialProgress(total, concurrency) as progress:` then `status(...)` while the
    cluster starts, `started()` and `finished(record)` for each trial."""

    def __init__(
        self,
        total: int,
        concurrency: int,
        *,
        console: Console | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.tally = Tally(total, concurrency)
        # A bar only when both streams are a terminal: the bar's control characters would
        # otherwise land in a file, and FORCE_COLOR (set by many CI runners) is no person.
        self._console = console or Console(stderr=True, force_terminal=sys.stderr.isatty() and sys.stdout.isatty())
        self._clock = clock
        self._started = clock()
        self._estimated_at = self._started
        self._estimate: float | None = None
        self._bar: _Bar | None = None
        if self._console.is_terminal:
            self._bar = _Bar(
                self.tally.counts,
                rich_progress.SpinnerColumn(),
                rich_progress.TextColumn("{task.description}", table_column=Column(min_width=20)),
                rich_progress.BarColumn(bar_width=None),
                rich_progress.MofNCompleteColumn(),
                "elapsed",
                rich_progress.TimeElapsedColumn(),
                _EtaColumn(self.eta_s),
                console=self._console,
                get_time=clock,
                expand=True,
            )
            self._task = self._bar.add_task("starting", total=total)

    def __enter__(self) -> TrialProgress:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.stop()

    def status(self, text: str) -> None:
        """What the experiment does now, between trials: starting the cluster, writing the report."""
        if self._bar is not None:
            self._bar.update(self._task, description=text, refresh=True)
        else:
            self._line(text)

    def started(self) -> None:
        self.tally.running += 1
        self._update()

    def finished(self, trial: TrialRecord) -> None:
        mark = self.tally.count(trial)
        self._estimated_at = self._clock()
        self._estimate = self.tally.eta_s()
        self._update()
        if self._bar is None:
            tally = self.tally
            self._line(
                f"{tally.done:>3}/{tally.total} {mark:<4} {trial.runtime:<17} {trial.task_id:<24} "
                f"{trial.scenario:<18} #{trial.trial_index} {trial.wall_time_s:5.1f}s | {tally.counts()} | "
                f"elapsed {_clock_time(self._clock() - self._started)} | eta {_clock_time(self.eta_s())}"
            )

    def eta_s(self) -> float | None:
        """The last estimate, counted down since: the bar's countdown between trials."""
        if self._estimate is None:
            return None
        return max(self._estimate - (self._clock() - self._estimated_at), 0.0)

    def _update(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.tally.done, refresh=True)

    def _line(self, text: str) -> None:
        # print, not the console: rich wraps long lines at the console's width.
        print(text, file=self._console.file, flush=True)


class _Bar(rich_progress.Progress):
    """The bar with the trial counts on a line of their own: on one line, the bar would not fit
    an 80-column terminal."""

    def __init__(self, counts: Callable[[], str], *columns: str | rich_progress.ProgressColumn, **options: Any) -> None:
        self._counts = counts  # first: the parent draws the display once, to start with
        super().__init__(*columns, **options)

    def get_renderables(self) -> Iterable[RenderableType]:
        yield self.make_tasks_table(self.tasks)
        yield Text(f"  {self._counts()}")


class _EtaColumn(rich_progress.ProgressColumn):
    def __init__(self, eta_s: Callable[[], float | None]) -> None:
        super().__init__()
        self._eta_s = eta_s

    def render(self, task: rich_progress.Task) -> Text:
        return Text(f"eta {_clock_time(self._eta_s())}", style="progress.remaining")


def _clock_time(seconds: float | None) -> str:
    return "-:--:--" if seconds is None else str(timedelta(seconds=round(seconds)))
