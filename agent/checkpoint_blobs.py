"""Git blob ids computed in Python, and an index of what the workspace held at its last
checkpoint or rollback.

Git's own index is what makes `git add` fast: it remembers each file's blob by the file's
status, so only changed files are read. Checkpoints no longer give git a work tree (nor an
index), so the same is done here: the index names the commit the workspace was last made
into or restored from, every path of that commit with its mode and blob, and, for a file whose
status can be trusted, that status. A file whose size, times, inode and device are the ones
recorded is taken to hold the recorded blob, unread; a rollback to the commit the index names
needs no listing from git.

The change time (ctime) is in the status because a sandboxed command can set a file's mtime
to anything but not its ctime, which the kernel sets on every write; a status is recorded only
for a file whose ctime is older than RACY_NS before the walk began, so a file written twice
within one timestamp tick is never taken for unchanged (git's "racily clean" entries). The
index lives in the checkpoint repository, where the sandbox cannot write, and every blob it
names is in that repository.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import time
from pathlib import Path

from agent.hostile_tree import chunks_of

INDEX_FILE = "lab-index"
_FORMAT = b"lab-index 1"
# Far above the coarsest timestamp tick a Linux filesystem uses (jiffies: 4-10 ms).
RACY_NS = 1_000_000_000


def blob_id(data: bytes) -> str:
    """The id git gives a blob of `data`."""
    digest = hashlib.sha1(b"blob %d\0" % len(data), usedforsecurity=False)
    digest.update(data)
    return digest.hexdigest()


def file_blob_id(path: Path, size: int) -> str:
    """The blob id of a regular file `size` bytes long, read in bounded chunks (NotRegularFile
    for anything else). A file that is not `size` bytes long gets an id no blob of it has."""
    digest = hashlib.sha1(b"blob %d\0" % size, usedforsecurity=False)
    for chunk in chunks_of(path):
        digest.update(chunk)
    return digest.hexdigest()


def _status(info: os.stat_result) -> bytes:
    return b"%d:%d:%d:%d:%d" % (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


class Index:
    """Read from the repository's git directory (`git_dir`; None: none kept), and written
    anew by each checkpoint or restore with `add` and `save`."""

    def __init__(self, git_dir: Path | None) -> None:
        self._path = git_dir / INDEX_FILE if git_dir is not None else None
        self._started = time.time_ns()
        self.commit: str | None = None
        # path -> (mode, blob id, status or b"-")
        self._old: dict[str, tuple[str, str, bytes]] = {}
        self._new: dict[str, tuple[str, str, bytes]] = {}
        if self._path is not None:
            with contextlib.suppress(OSError, ValueError):
                self._read(self._path.read_bytes())
        self.stored_ids = {oid for _, oid, _ in self._old.values()}

    def _read(self, data: bytes) -> None:
        header, *records = data.split(b"\0")
        head, _, commit = header.partition(b"\n")
        if head != _FORMAT or len(commit) != 40:
            return
        for record in records:
            if record:
                meta, _, path = record.partition(b"\t")
                mode, oid, status = meta.decode("ascii").split(" ")
                self._old[os.fsdecode(path)] = (mode, oid, status.encode())
        self.commit = commit.decode("ascii")

    def listing(self, commit: str) -> dict[str, tuple[str, str]] | None:
        """Every path of `commit` with its mode and blob, if the index is of that commit."""
        if commit != self.commit:
            return None
        return {path: (mode, oid) for path, (mode, oid, _) in self._old.items()}

    def known(self, relative: str, info: os.stat_result) -> str | None:
        """The blob the file holds, if its status is the one recorded with it."""
        entry = self._old.get(relative)
        if entry is not None and entry[2] == _status(info):
            return entry[1]
        return None

    def add(self, relative: str, mode: str, oid: str, info: os.stat_result | None) -> None:
        """A path of the commit being made or restored; `info`: the status of a file that
        holds `oid` (None: a path whose status is not to be trusted, or a symlink)."""
        trusted = info is not None and max(info.st_ctime_ns, info.st_mtime_ns) < self._started - RACY_NS
        self._new[relative] = (mode, oid, _status(info) if trusted and info is not None else b"-")

    def save(self, commit: str) -> None:
        """The index of `commit`: the paths added since it was read."""
        if self._path is None or (commit == self.commit and self._new == self._old):
            return
        records = [_FORMAT + b"\n" + commit.encode()]
        records += [
            b"%s %s %s\t%s" % (mode.encode(), oid.encode(), status, os.fsencode(path))
            for path, (mode, oid, status) in self._new.items()
        ]
        scratch = self._path.with_name(f"{self._path.name}.{os.getpid()}.tmp")
        with contextlib.suppress(OSError):
            scratch.write_bytes(b"\0".join(records) + b"\0")
            scratch.replace(self._path)
