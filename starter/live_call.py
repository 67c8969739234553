"""The line that says a model call is in flight: what it is for, how long it has run, and the
run's tokens so far. A local model on a CPU takes from seconds to minutes a call (most of it
reading the prompt), and a run's steps are printed only once recorded: without this line the
terminal says nothing all that time.

On a terminal it is one live line (rich), updated in place and erased when the call ends, so
the step lines read as they always have. Anywhere else (a pipe, a log file, CI) a line that
updates in place would be a stream of control characters, and a line a second would bury the
steps: one plain line once a call has run FIRST_S, then one every AGAIN_S it goes on (a three
minute call: six lines). A call shorter than SHOW_AFTER_S shows nothing anywhere, so a scripted
run (calls of milliseconds) prints exactly what it did before.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable, Hashable
from dataclasses import dataclass
from typing import TextIO

from rich.console import Console
from rich.live import Live
from rich.text import Text


@dataclass(frozen=True)
class LivePace:
    """When the line shows, and how often it is said again where it cannot be updated in place."""

    show_after_s: float = 2.0
    first_s: float = 10.0  # not a terminal: the first line, then one every again_s
    again_s: float = 30.0
    # How often a call timed here (the baseline's, in this process) is looked at again.
    tick_s: float = 1.0


def call_text(what: str, elapsed_s: float, tokens: int, attempt: int = 1) -> str:
    again = f" (attempt {attempt})" if attempt > 1 else ""
    return f"  model call {what}: running {elapsed_s:.0f} s{again}, ~{tokens} tokens so far"


def for_step(step: int, subtask_id: str | None) -> str:
    """What a proposal's call is for, named as its step line will name it."""
    return f"for step {step} ({subtask_id})" if subtask_id else f"for step {step}"


class ModelCallLine:
    def __init__(self, stream: TextIO, say: Callable[[str], None], pace: LivePace | None = None) -> None:
        self.pace = pace or LivePace()
        self._say = say
        # A terminal only when the stream is one: FORCE_COLOR (set by many CI runners) is no person.
        self._console = Console(file=stream, force_terminal=_isatty(stream))
        self._live: Live | None = None
        self._call: Hashable = None
        self._next_s = 0.0

    def show(self, call: Hashable, what: str, elapsed_s: float, tokens: int, attempt: int = 1) -> None:
        """The call `call` (any key that names one attempt of one call) has run `elapsed_s`."""
        if call != self._call:
            self._call, self._next_s = call, self.pace.first_s
        if elapsed_s < self.pace.show_after_s:
            return
        text = call_text(what, elapsed_s, tokens, attempt)
        if self._console.is_terminal:
            self._draw(text)
        elif elapsed_s >= self._next_s:
            self._say(text)
            # Once, however late it is looked at: a watch that attaches 100 s into a call.
            while self._next_s <= elapsed_s:
                self._next_s += self.pace.again_s

    def clear(self) -> None:
        """Erase the live line (the call ended, or a line is about to be printed under it)."""
        if self._live is not None:
            live, self._live = self._live, None
            with contextlib.suppress(OSError):
                live.stop()

    @contextlib.asynccontextmanager
    async def during(self, what: str, tokens: int) -> AsyncIterator[None]:
        """Time a call made in this process: the line is shown while the body runs."""
        started = time.monotonic()
        call = object()

        async def tick() -> None:
            while True:
                await asyncio.sleep(self.pace.tick_s)
                self.show(call, what, time.monotonic() - started, tokens)

        ticker = asyncio.create_task(tick())
        try:
            yield
        finally:
            ticker.cancel()
            self.clear()

    def _draw(self, text: str) -> None:
        line = Text(text, no_wrap=True, overflow="ellipsis")
        with contextlib.suppress(OSError):
            if self._live is None:
                # No redirection of sys.stdout/stderr: the printer erases this line before it prints.
                self._live = Live(
                    line,
                    console=self._console,
                    auto_refresh=False,
                    transient=True,
                    redirect_stdout=False,
                    redirect_stderr=False,
                )
                self._live.start(refresh=True)
            else:
                self._live.update(line, refresh=True)


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed stream, or an object that is not a file
        return False
