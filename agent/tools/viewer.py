"""How a model sees a file: numbered lines, a window at a time.

SWE-agent found that small windows with line numbers beat whole files for a model: it sees
where it is, what it may edit by number, and how to see more, without flooding its context.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from agent.tools.output import MAX_OUTPUT_CHARS, truncate
from contracts.errors import ToolError

# Lines shown at once when no range is asked for: SWE-agent's window is 100 lines, for models
# with far larger contexts than a small local model's 4,096 tokens.
WINDOW_LINES = 60
# Kept for the header and the last line, out of the observation's characters.
_FRAME_CHARS = 200


@dataclass(frozen=True)
class LongLine:
    """A line too long to hold whole (file_reads keeps its two ends): its first and last
    characters, more of each than a window shows, and its length in characters, without its
    line ending."""

    head: str
    tail: str
    length: int


Line = str | LongLine


def split_lines(text: str) -> list[str]:
    """`text`'s lines, each with its line ending, split at newlines only: the numbering of
    editors, grep and Python's error messages (str.splitlines also splits at form feeds)."""
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def numbered(number: int, line: str, width: int) -> str:
    return f"{number:>{width}}| {line.rstrip(chr(13) + chr(10))}"


def view(shown_as: str, lines: Sequence[str], start: int = 1, end: int | None = None) -> str:
    """Lines `start`..`end` (1-based, inclusive) of a text held whole, as `render` shows them."""
    wanted = min(end or len(lines), len(lines))
    window = lines[start - 1 : min(wanted, start + WINDOW_LINES - 1)]
    return render(shown_as, window, start, len(lines), wanted)


def render(
    shown_as: str, window: Sequence[Line], start: int, total: int, wanted: int | None, exact: bool = True
) -> str:
    """`window`, the lines from `start` (at most a window of them), under a header naming them,
    as much as fits an observation; when that cuts the range short, a last line says how to see
    the rest. `total` is the file's line count; not `exact` when the file was not counted to
    its end (a huge file: the header says "at least"). `wanted` is the last line asked for;
    None for the end of a file not counted to its end."""
    if total == 0:
        return f"{shown_as} (empty file)"
    if exact and start > total:
        raise ToolError(f"{shown_as} has {total} lines: start_line {start} is past its end")
    last = start + len(window) - 1
    width = len(str(last))
    room = MAX_OUTPUT_CHARS - len(shown_as) - _FRAME_CHARS
    shown: list[str] = []
    used = 0
    for number, line in enumerate(window, start=start):
        text, length = _shown_line(number, line, width, room)
        if shown and used + length + 1 > room:
            break
        shown.append(text)
        used += length + 1
    shown_last = start + len(shown) - 1
    parts = [f"{shown_as} (lines {start}-{shown_last} of {'' if exact else 'at least '}{total})", *shown]
    if wanted is None or shown_last < wanted:
        more = f"{wanted - shown_last} more lines" if exact and wanted is not None else "more lines"
        parts.append(f"({more}: read_file with start_line={shown_last + 1} shows them)")
    return "\n".join(parts)


def _shown_line(number: int, line: Line, width: int, room: int) -> tuple[str, int]:
    """The numbered line as shown (cut to `room` as `truncate` cuts, keeping its head and its
    tail) and the length of the whole numbered line."""
    if isinstance(line, str):
        whole = numbered(number, line, width)
        return truncate(whole, room)[0], len(whole)
    prefix = numbered(number, "", width)
    length = len(prefix) + line.length
    head = room * 3 // 4
    tail = room - head
    omitted = length - head - tail
    return f"{(prefix + line.head)[:head]}\n... [{omitted} characters omitted] ...\n{line.tail[-tail:]}", length
