"""What this process has verified of each ledger it appended to: the chain up to a length, and
the file's state as the last append left it. An append then reads and checks only the lines
added since (by it or another worker), so its cost does not grow with the ledger.

What stays checked: the chain's head (the line ending at the verified length is still the line
of the cached head hash, its hash recomputed), every line added since, and any rewrite of the
file that leaves its size as it was (a hand edit in place changes its mtime but not its size,
where an append always grows it). What waits for a full check: an edit within the verified
prefix made while other lines were appended. The first append after a restart, which has no
cache, checks the whole file, and so does `ledger verify` every time.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path

from agent.ledger.chain import event_hash
from agent.ledger.scan import ChainScan


@dataclass
class VerifiedPrefix:
    scan: ChainScan  # complete lines only: its torn_tail is empty
    inode: int
    size: int
    mtime_ns: int
    head_start: int  # offset of the head line (the last verified one)


_verified: dict[Path, VerifiedPrefix] = {}
# Threads of one process append under one flock each, but may touch this map at once.
_lock = threading.Lock()


def recall(path: Path, fd: int) -> VerifiedPrefix | None:
    """The verified prefix of the open ledger `fd`, if the file still begins with it."""
    with _lock:
        known = _verified.get(path)
    if known is None:
        return None
    now = os.fstat(fd)
    rewritten = now.st_size == known.size and now.st_mtime_ns != known.mtime_ns
    if now.st_ino != known.inode or now.st_size < known.size or rewritten or not _head_holds(fd, known):
        forget(path)
        return None
    return known


def remember(path: Path, fd: int, scan: ChainScan) -> None:
    """After an append (under the ledger's lock): the chain as it now is on disk, complete."""
    now = os.fstat(fd)
    if scan.problem is not None or scan.torn_tail or now.st_size != scan.complete_bytes or scan.last_seq == 0:
        forget(path)
        return
    head_start = _line_start(fd, now.st_size)
    verified = VerifiedPrefix(scan, now.st_ino, now.st_size, now.st_mtime_ns, head_start)
    with _lock:
        _verified[path] = verified


def forget(path: Path) -> None:
    with _lock:
        _verified.pop(path, None)


def _head_holds(fd: int, known: VerifiedPrefix) -> bool:
    """The head line is where it was, whole: a newline before it (an edit above it that changed
    a length has moved it), one at its end, and its content hashes to the cached head."""
    before = 1 if known.head_start > 0 else 0
    framed = os.pread(fd, known.size - known.head_start + before, known.head_start - before)
    line = framed[before:]
    if framed[:before] != b"\n" * before or not line.endswith(b"\n") or b"\n" in line[:-1]:
        return False
    try:
        fields = json.loads(line)
    except ValueError:
        return False
    return (
        isinstance(fields, dict)
        and fields.get("hash") == known.scan.last_hash == event_hash(fields)
        and fields.get("seq") == known.scan.last_seq
    )


def _line_start(fd: int, end: int, block: int = 4096) -> int:
    """Where the line that ends at `end` (its newline the byte before) starts."""
    position = end - 1
    while position > 0:
        start = max(0, position - block)
        chunk = os.pread(fd, position - start, start)
        newline = chunk.rfind(b"\n")
        if newline >= 0:
            return start + newline + 1
        position = start
    return 0
