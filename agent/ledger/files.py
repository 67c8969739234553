"""Durable file primitives for the ledger: whole reads, whole writes, fsync of data and of the
directory entries that name it. Blocking; the caller holds the ledger's lock."""

from __future__ import annotations

import os
from pathlib import Path


def replace_tail(path: Path, offset: int, old_size: int, new: bytes) -> None:
    """Writes `new` over the torn tail, then cuts what is left of it. Overwriting instead of
    truncating first means that a crash at any point leaves either the torn bytes (quarantined
    again by the next append) or the ledger_repaired event on disk, never a silent cut."""
    # A second descriptor without O_APPEND: on Linux pwrite ignores its offset under O_APPEND.
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        view = memoryview(new)
        while view:
            written = os.pwrite(fd, view, offset)
            view, offset = view[written:], offset + written
        os.fsync(fd)
        if offset < old_size:
            os.ftruncate(fd, offset)
            os.fsync(fd)
    finally:
        os.close(fd)


def write_new_file(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o644)
    try:
        write_all(fd, data)
        os.fsync(fd)
    finally:
        os.close(fd)
    fsync_dir(path.parent)


def write_all(fd: int, data: bytes) -> None:
    # A regular file takes the whole buffer in one write; the loop matters only when a signal or
    # a full disk cuts it short, and then the rest follows while the lock is still held.
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_all(fd: int) -> bytes:
    return read_from(fd, 0)


def read_from(fd: int, offset: int) -> bytes:
    """The file's bytes from `offset` to its end."""
    size = os.fstat(fd).st_size
    chunks: list[bytes] = []
    while offset < size:
        chunk = os.pread(fd, size - offset, offset)
        if not chunk:
            break
        chunks.append(chunk)
        offset += len(chunk)
    return b"".join(chunks)


def fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
