"""Reading a workspace from the host, where whatever the workspace holds was written by the
agent and must be treated as hostile.

The host-side code that touches a workspace (fingerprints, listings, search, checkpoints,
reads) runs as the worker, outside the sandbox, so the tree itself must not be able to steer
it, hang it or exhaust it:

- a walk is iterative (no `RecursionError` on a tree thousands of levels deep), never follows
  a symlink, and stops descending at `MAX_DEPTH`, saying which directories it left out; a
  directory is listed through a descriptor checked to be the directory the walk saw, so one
  swapped for a symlink meanwhile is not followed;
- only regular files are opened: `lstat` first (a FIFO, whose `open()` blocks until a writer
  comes, a device or a socket is never opened at all), then `O_NOFOLLOW | O_NONBLOCK`, and
  `fstat` on the descriptor must show the same file: one swapped in between is refused;
- a read takes at most the bytes asked for, however large the file;
- a deadline, when given, bounds a walk's or a read's time: a tree of a million entries cannot
  hold a worker thread for ever (Python cannot cancel a thread, so the work must stop itself).
"""

from __future__ import annotations

import errno
import os
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from contracts.errors import NotRegularFile, WalkTooLong

__all__ = [
    "MAX_DEPTH",
    "Entry",
    "EntryKind",
    "NotRegularFile",
    "WalkTooLong",
    "check_deadline",
    "chunks_of",
    "deadline_in",
    "describe",
    "kind_of",
    "open_regular",
    "read_regular",
    "walk",
]

# Deeper than any project's source tree (node_modules nests a few dozen levels at most), far
# below the ~1,000 levels where recursive walks crash and paths approach PATH_MAX.
MAX_DEPTH = 128
# How often (in entries) a walk looks at the clock inside one large directory.
_CLOCK_EVERY = 1024

_KIND_NAMES = {
    stat.S_IFIFO: "FIFO",
    stat.S_IFSOCK: "socket",
    stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device",
    stat.S_IFDIR: "directory",
    stat.S_IFLNK: "symlink",
}


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
    # A directory the walk did not enter: MAX_DEPTH levels down, or its path too long to open.
    cut: bool = False


def kind_of(mode: int) -> EntryKind:
    if stat.S_ISLNK(mode):
        return EntryKind.SYMLINK
    if stat.S_ISDIR(mode):
        return EntryKind.DIRECTORY
    if stat.S_ISREG(mode):
        return EntryKind.FILE
    return EntryKind.SPECIAL


def describe(mode: int) -> str:
    """What a file is, as a person names it: "FIFO", "socket", "directory", "regular file"."""
    return _KIND_NAMES.get(stat.S_IFMT(mode), "regular file" if stat.S_ISREG(mode) else "special file")


def deadline_in(seconds: float | None) -> float | None:
    """A `time.monotonic()` deadline `seconds` from now (None: none)."""
    return None if seconds is None else time.monotonic() + seconds


def check_deadline(deadline: float | None, doing: str) -> None:
    if deadline is not None and time.monotonic() > deadline:
        raise WalkTooLong(f"{doing} took longer than allowed")


def walk(
    root: Path,
    skip: Callable[[str], bool] = lambda name: False,
    max_depth: int = MAX_DEPTH,
    deadline: float | None = None,
) -> Iterator[Entry]:
    """Every entry below `root`, without following symlinks, in sorted pre-order: each
    directory's entries sorted by name, a directory's contents right after it (the order of
    sorted paths compared part by part). `skip(name)` leaves a directory or file out by its name
    (and, for a directory, everything in it). A directory `max_depth` levels down is yielded
    with `cut=True` and not entered. `deadline` is a `time.monotonic()` value; past it the walk
    raises WalkTooLong. Entries that vanish while walking are left out."""
    try:
        top = os.stat(root)  # the root is the caller's: a symlink to it is followed
    except OSError:
        return
    pending: list[Entry] = list(reversed(_children(root, "", top, skip, max_depth, 1, deadline) or []))
    while pending:
        check_deadline(deadline, f"walking {root}")
        entry = pending.pop()
        if entry.kind is EntryKind.DIRECTORY and not entry.cut:
            depth = entry.relative.count("/") + 2
            children = _children(root, entry.relative, entry.stat, skip, max_depth, depth, deadline)
            if children is None:
                # Gone, swapped, unreadable, or a path past PATH_MAX: not entered, and said so.
                entry = Entry(entry.relative, entry.kind, entry.stat, cut=True)
            else:
                pending.extend(reversed(children))
        yield entry


def _children(
    root: Path,
    relative: str,
    seen: os.stat_result,
    skip: Callable[[str], bool],
    max_depth: int,
    depth: int,
    deadline: float | None,
) -> list[Entry] | None:
    """The sorted entries of the directory `relative` (at `depth`), if it is still the one
    `seen` describes; None when it cannot be listed."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NONBLOCK | os.O_CLOEXEC | (os.O_NOFOLLOW if relative else 0)
    try:
        descriptor = os.open(root / relative if relative else root, flags)
    except OSError:
        return None
    try:
        if not _same(os.fstat(descriptor), seen):
            return None
        found: list[Entry] = []
        with os.scandir(descriptor) as listing:
            for count, item in enumerate(listing):
                if count % _CLOCK_EVERY == _CLOCK_EVERY - 1:
                    check_deadline(deadline, f"walking {root}")
                if skip(item.name):
                    continue
                try:
                    info = item.stat(follow_symlinks=False)
                except OSError:
                    continue
                kind = kind_of(info.st_mode)
                path = f"{relative}/{item.name}" if relative else item.name
                found.append(Entry(path, kind, info, cut=kind is EntryKind.DIRECTORY and depth >= max_depth))
    except OSError:
        return None
    finally:
        os.close(descriptor)
    found.sort(key=lambda entry: entry.relative.rsplit("/", 1)[-1])
    return found


def _same(info: os.stat_result, seen: os.stat_result) -> bool:
    return (info.st_dev, info.st_ino) == (seen.st_dev, seen.st_ino)


def open_regular(path: Path, same_as: os.stat_result | None = None) -> int:
    """A read-only descriptor of `path` if it is a regular file (and, given `same_as`, the very
    file that stat describes); NotRegularFile otherwise. Never blocks: anything but a regular
    file is refused from its `lstat`, before any `open()`; never follows a symlink in the last
    component."""
    info = os.lstat(path)
    if not stat.S_ISREG(info.st_mode):
        raise NotRegularFile(f"{path}: a {describe(info.st_mode)}, not a regular file")
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY
    try:
        descriptor = os.open(path, flags)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENXIO):  # swapped for a symlink or a socket since
            raise NotRegularFile(f"{path}: not a regular file") from None
        raise
    opened = os.fstat(descriptor)
    if not stat.S_ISREG(opened.st_mode) or not _same(opened, same_as or info):
        os.close(descriptor)
        raise NotRegularFile(f"{path}: a {describe(opened.st_mode)} swapped in while opening it")
    return descriptor


def read_regular(path: Path, limit: int, offset: int = 0, same_as: os.stat_result | None = None) -> bytes:
    """At most `limit` bytes of a regular file from `offset`; NotRegularFile for anything else."""
    descriptor = open_regular(path, same_as)
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


def chunks_of(
    path: Path, size: int = 1 << 20, same_as: os.stat_result | None = None, deadline: float | None = None
) -> Iterator[bytes]:
    """A regular file's content, `size` bytes at a time (memory bounded by `size`, whatever
    the file's length); NotRegularFile for anything else, WalkTooLong past `deadline`."""
    descriptor = open_regular(path, same_as)
    try:
        while chunk := os.read(descriptor, size):
            check_deadline(deadline, f"reading {path}")
            yield chunk
    finally:
        os.close(descriptor)
