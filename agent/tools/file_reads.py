"""Reading workspace files on the host: read_file's window, and the text an edit changes.

The workspace is hostile (agent.hostile_tree): a file may be a FIFO, or 512 MiB of one line.
So only regular files are opened, never blocking; read_file streams the file up to the end of
its window, holding only the window's lines (a line too long to hold is kept as its two
ends), and counts the lines after it only through a bounded number of bytes; an edit reads a
file whole only up to EDIT_MAX_BYTES. Each read stops at a deadline, so a worker thread is
always given back.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Self

from pydantic import Field, model_validator

from agent.hostile_tree import NotRegularFile, WalkTooLong, chunks_of, deadline_in, describe, read_regular
from agent.tools.arguments import OptionalLine, ToolArguments
from agent.tools.context import ToolContext
from agent.tools.paths import resolve_in_workspace
from agent.tools.syntax import PYTHON_SUFFIXES
from agent.tools.viewer import WINDOW_LINES, Line, LongLine, render
from contracts.errors import ToolError

# The largest file an edit reads whole: source files are far smaller; a larger one is data,
# changed with a command. A Python file is also compiled by the syntax check, about a second a
# MiB with the GIL held (the worker's event loop waits), up to three times an edit: less.
EDIT_MAX_BYTES = 4 * 1024**2
PYTHON_EDIT_MAX_BYTES = 1024**2
READ_DEADLINE_S = 10.0
_CHUNK_BYTES = 1 << 20
# A line longer than this is kept as its first and last _END_BYTES: more than a window shows.
_LINE_BYTES = 1 << 16
_END_BYTES = 1 << 13
# After the window, lines are counted through this many more bytes (about 0.1 s); past them,
# the header says "at least".
_COUNT_BYTES = 64 * 1024**2
# UTF-8 continuation bytes: a text's length in characters is the count of its other bytes.
_CONTINUATION = bytes(range(0x80, 0xC0))


class ReadFileArgs(ToolArguments):
    path: str = Field(description="File path relative to the workspace root.")
    start_line: OptionalLine = None
    end_line: OptionalLine = None

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.start_line is not None and self.end_line is not None and self.end_line < self.start_line:
            raise ValueError("end_line is before start_line")
        return self


async def read_file(ctx: ToolContext, args: ReadFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)
    start = args.start_line or 1
    last = start + WINDOW_LINES - 1 if args.end_line is None else min(args.end_line, start + WINDOW_LINES - 1)
    window = await asyncio.to_thread(read_window, target, args.path, start, last)
    wanted = min(args.end_line or window.total, window.total) if window.exact else args.end_line
    return render(args.path, window.lines, start, window.total, wanted, window.exact)


@dataclass
class Window:
    """Lines `start`..`last` of a file (fewer at its end), and its line count: exact, or (a
    file not counted to its end) the lines seen."""

    lines: list[Line] = field(default_factory=list)
    total: int = 0
    exact: bool = True


def read_window(target: Path, shown_as: str, start: int, last: int) -> Window:
    """Blocking; memory bounded by the window, whatever the file's size. ToolError for what is
    not a regular file, or a read past READ_DEADLINE_S."""
    window = Window()
    number = 1  # the line the next byte belongs to
    line: _LineBuffer | None = None
    counted_after = 0
    ends_a_line = True
    try:
        for chunk in chunks_of(target, _CHUNK_BYTES, deadline=deadline_in(READ_DEADLINE_S)):
            ends_a_line = chunk.endswith(b"\n")
            position = 0
            while position < len(chunk):
                if number < start:
                    number, position = _skip_lines(chunk, position, number, start)
                elif number <= last:
                    newline = chunk.find(b"\n", position)
                    stop = len(chunk) if newline < 0 else newline + 1
                    line = line or _LineBuffer()
                    line.add(chunk[position:stop])
                    position = stop
                    if newline >= 0:
                        window.lines.append(line.line())
                        line, number = None, number + 1
                else:
                    number += chunk.count(b"\n", position)
                    counted_after += len(chunk) - position
                    position = len(chunk)
            if counted_after > _COUNT_BYTES:
                return Window(window.lines, number - 1, exact=False)
    except WalkTooLong:
        raise ToolError(f"reading {shown_as} took over {READ_DEADLINE_S:.0f} s (at line {number}): stopped") from None
    except (OSError, NotRegularFile) as error:
        raise ToolError(unreadable(shown_as, target, error)) from None
    if line is not None:
        window.lines.append(line.line())
    window.total = number - 1 if ends_a_line else number
    return window


def _skip_lines(chunk: bytes, position: int, number: int, start: int) -> tuple[int, int]:
    """Past the lines before `start` in `chunk`: the line number and position reached."""
    found = chunk.count(b"\n", position)
    if number + found < start:
        return number + found, len(chunk)
    for _ in range(start - number):
        position = chunk.index(b"\n", position) + 1
    return start, position


class _LineBuffer:
    """One line of the window, collected across chunks: whole up to _LINE_BYTES, else its two
    ends and a count of the characters between them."""

    def __init__(self) -> None:
        self.head = bytearray()
        self.tail = b""
        self.long = False
        self.middle = 0

    def add(self, piece: bytes) -> None:
        if not self.long and len(self.head) + len(piece) <= _LINE_BYTES:
            self.head += piece
            return
        if not self.long:
            self.long = True
            whole = bytes(self.head) + piece
            self.head = bytearray(whole[:_END_BYTES])
            rest = whole[_END_BYTES:]
        else:
            rest = self.tail + piece
        self.middle += _characters(rest[:-_END_BYTES])
        self.tail = rest[-_END_BYTES:]

    def line(self) -> Line:
        head = self.head.decode("utf-8", errors="replace")
        if not self.long:
            return head
        tail = self.tail.decode("utf-8", errors="replace").rstrip("\r\n")
        return LongLine(head, tail, len(head) + self.middle + len(tail))


def _characters(data: bytes) -> int:
    return len(data.translate(None, _CONTINUATION))


def read_text(target: Path, shown_as: str, strict: bool = False) -> str:
    """A file's whole text, for an edit: ToolError for a file that is missing, not a regular
    file, or over EDIT_MAX_BYTES. `strict` refuses files that are not UTF-8, so an edit never
    rewrites bytes it could not read. Blocking."""
    limit = PYTHON_EDIT_MAX_BYTES if target.suffix in PYTHON_SUFFIXES else EDIT_MAX_BYTES
    try:
        info = os.lstat(target)
        if stat.S_ISREG(info.st_mode) and info.st_size > limit:
            raise ToolError(too_large(shown_as, info.st_size))
        data = read_regular(target, limit + 1, same_as=info)
    except (OSError, NotRegularFile) as error:
        raise ToolError(unreadable(shown_as, target, error)) from None
    if len(data) > limit:  # it grew since its lstat
        raise ToolError(too_large(shown_as, len(data)))
    try:
        return data.decode("utf-8", errors="strict" if strict else "replace")
    except UnicodeDecodeError as error:
        raise ToolError(f"{shown_as} is not UTF-8 text ({error.reason} at byte {error.start})") from None


def too_large(shown_as: str, size: int) -> str:
    return (
        f"{shown_as} is {size / 1024**2:.1f} MiB: the edit tools change files of up to "
        f"{EDIT_MAX_BYTES // 1024**2} MiB (Python files, which they compile, of up to "
        f"{PYTHON_EDIT_MAX_BYTES // 1024**2} MiB); change a larger one with run_command"
    )


def unreadable(shown_as: str, target: Path, error: OSError | NotRegularFile) -> str:
    """Why a file tool cannot read `shown_as`, as the model can act on it."""
    if isinstance(error, FileNotFoundError | NotADirectoryError):
        return f"no such file: {shown_as}"
    try:
        mode = os.lstat(target).st_mode
    except OSError:
        return f"no such file: {shown_as}"
    if stat.S_ISDIR(mode):
        return f"{shown_as} is a directory, not a file: list_files shows what it holds"
    if not stat.S_ISREG(mode):
        return f"{shown_as} is a {describe(mode)}, not a regular file: the file tools read regular files only"
    if isinstance(error, NotRegularFile):
        return f"{shown_as} was replaced while it was opened: read it again"
    return f"cannot read {shown_as}: {getattr(error, 'strerror', None) or error}"
