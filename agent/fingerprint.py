"""A workspace's content, as one digest: two fingerprints are equal when no file was added,
removed or changed. What a tool cannot read back (caches a test run leaves) does not count.

The workspace is hostile (agent.hostile_tree): the walk is iterative and cut at MAX_DEPTH, a
FIFO, socket or device counts by its kind and never opened, a symlink by its target's text,
a regular file by a hash of its content read in chunks; the whole stops at a deadline, raising
WalkTooLong rather than holding the verifier's thread.

A file over _CONTENT_BYTES counts by its size, mode and change times instead of its content:
hashing 512 MiB at every step would cost seconds, and its ctime, which no process can set back,
changes with any write. A directory the walk did not enter (over MAX_DEPTH levels down) counts
by its own inode, mode and times: a change among its entries changes the digest, a change
deeper down does not. That is enough for what the fingerprint serves, the repeated-action
guard: a change it misses makes the guard refuse a call as a repeat, an over-cautious refusal
the model is told about ("change something first"), never an action allowed that was not.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path

from agent.hostile_tree import Entry, EntryKind, NotRegularFile, WalkTooLong, chunks_of, deadline_in, walk

FINGERPRINT_DEADLINE_S = 20.0
_IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
_CONTENT_BYTES = 32 * 1024**2


def _ignored(name: str) -> bool:
    return name in _IGNORED_DIRS or name.endswith(".pyc")


def workspace_fingerprint(workspace: Path) -> str:
    """Blocking: it reads every file, for at most about FINGERPRINT_DEADLINE_S (WalkTooLong past it)."""
    digest = hashlib.sha256()
    for relative, state in entry_states(workspace):
        digest.update(relative.encode(errors="surrogateescape") + b"\0" + state + b"\0")
    return digest.hexdigest()


def entry_states(
    root: Path,
    skip: Callable[[str], bool] = _ignored,
    deadline_s: float | None = None,
    content_bytes: int | None = _CONTENT_BYTES,
) -> Iterator[tuple[str, bytes]]:
    """Each entry under `root` (sorted pre-order) with what is known of its state: equal states
    mean the same content. Files over `content_bytes` count by their metadata (None: every file
    by its content). WalkTooLong past `deadline_s` (default FINGERPRINT_DEADLINE_S)."""
    deadline_s = FINGERPRINT_DEADLINE_S if deadline_s is None else deadline_s
    deadline = deadline_in(deadline_s)
    try:
        for entry in walk(root, skip=skip, deadline=deadline):
            yield entry.relative, _state(root, entry, deadline, content_bytes)
    except WalkTooLong:
        raise WalkTooLong(
            f"the workspace could not be read within {deadline_s:.0f} s: it holds too many files or bytes"
        ) from None


def _state(root: Path, entry: Entry, deadline: float | None, content_bytes: int | None) -> bytes:
    info = entry.stat
    mode = stat.S_IMODE(info.st_mode)
    match entry.kind:
        case EntryKind.FILE if content_bytes is not None and info.st_size > content_bytes:
            return b"large %o %d %d %d %d" % (mode, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
        case EntryKind.FILE:
            return b"file %o " % mode + _content_hash(root / entry.relative, info, deadline)
        case EntryKind.SYMLINK:
            try:
                return b"-> " + os.fsencode(os.readlink(root / entry.relative))
            except OSError as error:
                return f"unreadable link: {error.strerror}".encode()
        case EntryKind.DIRECTORY if entry.cut:
            return b"not entered %o %d %d %d" % (mode, info.st_ino, info.st_mtime_ns, info.st_ctime_ns)
        case EntryKind.DIRECTORY:
            return b"directory %o" % mode
        case _:
            # A FIFO, socket or device: what it is, never what a read of it would block on.
            return b"special %o %o" % (stat.S_IFMT(info.st_mode), mode)


def _content_hash(path: Path, info: os.stat_result, deadline: float | None) -> bytes:
    content = hashlib.sha256()
    try:
        for chunk in chunks_of(path, same_as=info, deadline=deadline):
            content.update(chunk)
    except NotRegularFile:
        return b"replaced while read"
    except OSError as error:  # unreadable: its state is what can be seen of it
        return f"unreadable: {error.strerror}".encode()
    return content.digest()
