"""Reading a workspace from the host, where whatever the workspace holds was written by the
agent and must be treated as hostile.

The host-side code that touches a workspace (fingerprints, listings, search, checkpoints,
reads) runs as the worker, outside the sandbox, so the tree itself must not be able to steer
it, hang it or exhaust it:

- a walk is iterative (no `RecursionError` on a tree thousands of levels deep), never follows
  a symlink, and stops descending at `MAX_DEPTH`, saying which directories it left out;
- only regular files are opened, with `O_NOFOLLOW | O_NONBLOCK`, and checked with `fstat`
  on the descriptor that was opened: a FIFO (whose `open()` blocks until a writer comes), a
  device or a socket is never read, and a symlink swapped in for a file is refused by the
  kernel rather than followed;
- a read takes at most the bytes asked for, however large the file;
- a deadline, when given, bounds a walk's time: a tree of a million entries cannot hold a
  worker thread for ever (Python cannot cancel a thread, so the work must stop itself).
"""

from __future__ import annotations

import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

# Deeper than any project's source tree (node_modules nests a few dozen levels at most), far
# below the ~1,000 levels where recursive walks crash and paths approach PATH_MAX.
MAX_DEPTH = 128


class EntryKind(StrEnum):
    FILE = "file"
    DIRECTORY = "directory"
    SYMLINK = "symlink"
    # A FIFO, a socket, a device: never opened.
    SPECIAL = "special"


@dataclass(frozen=True)
class Entry:
    """One entry of a walk. `relative` is a POSIX path relative to the walk's root."""

    relative: str
    kind: EntryKind
    stat: os.stat_result
    # A directory at MAX_DEPTH: listed, not descended into.
    cut: bool = False


class NotRegularFile(OSError):
    """The path is a FIFO, device, socket, directory or symlink, not a regular file."""


class WalkTooLong(TimeoutError):
    """A walk passed its deadline."""


def kind_of(mode: int) -> EntryKind:
    if stat.S_ISLNK(mode):
        return EntryKind.SYMLINK
    if stat.S_ISDIR(mode):
        return EntryKind.DIRECTORY
    if stat.S_ISREG(mode):
        return EntryKind.FILE
    return EntryKind.SPECIAL


def walk(
    root: Path,
    skip: Callable[[str], bool] = lambda name: False,
    max_depth: int = MAX_DEPTH,
    deadline: float | None = None,
) -> Iterator[Entry]:
    """Every entry below `root`, without following symlinks, in an order fixed by the names
    alone: a directory's entries sorted, then each subdirectory's in turn. `skip(name)` leaves
    a directory or file out by its name (and, for a directory, everything in it). A directory
    `max_depth` levels down is yielded with `cut=True` and not entered. `deadline` is a
    `time.monotonic()` value; past it the walk raises WalkTooLong. Entries that vanish while walking are left out."""
    pending: list[tuple[str, int]] = [("", 0)]
    while pending:
        relative, depth = pending.pop()
        if deadline is not None and time.monotonic() > deadline:
            raise WalkTooLong(f"walking {root} took longer than allowed")
        try:
            with os.scandir(root / relative if relative else root) as listing:
                names = sorted((found.name for found in listing), reverse=True)
        except OSError:
            # Gone, unreadable, or a path past PATH_MAX (ENAMETOOLONG): nothing to list.
            continue
        children: list[tuple[str, int]] = []
        for name in reversed(names):
            if skip(name):
                continue
            path = f"{relative}/{name}" if relative else name
            try:
                info = os.lstat(root / path)
            except OSError:
                continue
            kind = kind_of(info.st_mode)
            cut = kind is EntryKind.DIRECTORY and depth + 1 >= max_depth
            yield Entry(path, kind, info, cut)
            if kind is EntryKind.DIRECTORY and not cut:
                children.append((path, depth + 1))
        # Reversed onto the stack, so the first child is walked first: sorted pre-order.
        pending.extend(reversed(children))


def open_regular(path: Path) -> int:
    """A read-only descriptor of `path` if it is a regular file; NotRegularFile otherwise.
    Never blocks (a FIFO opened non-blocking returns at once and is then refused) and never
    follows a symlink in the last component."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno == 40:  # ELOOP: the last component is a symlink
            raise NotRegularFile(error.errno, "a symlink, not a regular file", str(path)) from None
        raise
    info = os.fstat(descriptor)
    if not stat.S_ISREG(info.st_mode):
        os.close(descriptor)
        raise NotRegularFile(0, f"a {kind_of(info.st_mode)}, not a regular file", str(path))
    return descriptor


def read_regular(path: Path, limit: int, offset: int = 0) -> bytes:
    """At most `limit` bytes of a regular file from `offset`; NotRegularFile for anything else."""
    descriptor = open_regular(path)
    try:
        chunks: list[bytes] = []
        left = limit
        position = offset
        while left > 0:
            chunk = os.pread(descriptor, min(left, 1 << 20), position)
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
            position += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def chunks_of(path: Path, size: int = 1 << 20) -> Iterator[bytes]:
    """A regular file's content, `size` bytes at a time (memory bounded by `size`, whatever
    the file's length); NotRegularFile for anything else."""
    descriptor = open_regular(path)
    try:
        while chunk := os.read(descriptor, size):
            yield chunk
    finally:
        os.close(descriptor)
