"""A progress bar on stderr while trials run: one line per finished trial, with the bar."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from contracts.experiment import TrialRecord

_WIDTH = 24


class Progress:
    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self._total = total
        self._done = 0
        self._started = time.monotonic()
        self._stream = stream or sys.stderr

    def finished(self, trial: TrialRecord) -> None:
        self._done += 1
        filled = round(_WIDTH * self._done / max(self._total, 1))
        bar = "#" * filled + "." * (_WIDTH - filled)
        mark = "ok  " if trial.success else ("INFR" if trial.infrastructure_error else "fail")
        if not trial.valid:
            mark = "INVL"
        elapsed = time.monotonic() - self._started
        eta = elapsed / self._done * (self._total - self._done)
        print(
            f"[{bar}] {self._done:>3}/{self._total} {mark} {trial.runtime:<17} {trial.task_id:<24} "
            f"{trial.scenario:<18} #{trial.trial_index} {trial.wall_time_s:5.1f}s  (eta {eta:4.0f}s)",
            file=self._stream,
            flush=True,
        )
