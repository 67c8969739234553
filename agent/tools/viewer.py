"""How a model sees a file: numbered lines, a window at a time.

SWE-agent found that small windows with line numbers beat whole files for a model: it sees
where it is, what it may edit by number, and how to see more, without flooding its context.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.tools.output import MAX_OUTPUT_CHARS, truncate
from contracts.errors import ToolError

# Lines shown at once when no range is asked for: SWE-agent's window is 100 lines, for models
# with far larger contexts than a small local model's 4,096 tokens.
WINDOW_LINES = 60
# Kept for the header and the last line, out of the observation's characters.
_FRAME_CHARS = 200


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
    """Lines `start`..`end` (1-based, inclusive) under a header naming them, at most a window
    and what fits an observation; when that cuts the range short, a last line says how to see
    the rest."""
    total = len(lines)
    if total == 0:
        return f"{shown_as} (empty file)"
    if start > total:
        raise ToolError(f"{shown_as} has {total} lines: start_line {start} is past its end")
    wanted = min(end or total, total)
    last = min(wanted, start + WINDOW_LINES - 1)
    width = len(str(last))
    room = MAX_OUTPUT_CHARS - len(shown_as) - _FRAME_CHARS
    shown: list[str] = []
    used = 0
    for number in range(start, last + 1):
        line = numbered(number, lines[number - 1], width)
        if shown and used + len(line) + 1 > room:
            break
        shown.append(truncate(line, room)[0])
        used += len(line) + 1
    shown_last = start + len(shown) - 1
    parts = [f"{shown_as} (lines {start}-{shown_last} of {total})", *shown]
    if shown_last < wanted:
        parts.append(f"({wanted - shown_last} more lines: read_file with start_line={shown_last + 1} shows them)")
    return "\n".join(parts)
