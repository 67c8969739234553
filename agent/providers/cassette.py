"""A cassette: a real model's completions recorded to a JSONL file, replayed without a network.

One line per completion: `{"request": SHA256, "completion": {...}}`. The key is the sha256 of the
canonical request (model, messages, response format, temperature, max tokens, seed); neither the
API key nor the base URL is part of it, so a cassette recorded against one server replays for
another. When a request was recorded more than once, the latest line wins.

Appends are safe under concurrency, within a process (a lock) and across worker processes (an
exclusive `flock`): each completion is one `write` of one line, fsynced before the call returns.
"""

from __future__ import annotations

import asyncio
import fcntl
import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

Record = dict[str, Any]


def request_key(request: Mapping[str, Any]) -> str:
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class Cassette:
    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._index: dict[str, Record] = {}
        self._version: tuple[int, int] | None = None

    async def lookup(self, key: str) -> Record | None:
        return await asyncio.to_thread(self._lookup, key)

    async def append(self, key: str, completion: Record) -> None:
        line = json.dumps({"request": key, "completion": completion}, sort_keys=True, ensure_ascii=False) + "\n"
        await asyncio.to_thread(self._append, line.encode("utf-8"))

    def _lookup(self, key: str) -> Record | None:
        with self._lock:
            try:
                stat = self.path.stat()
            except FileNotFoundError:
                return None
            version = (stat.st_mtime_ns, stat.st_size)
            if version != self._version:
                self._index = _read(self.path)
                self._version = version
            return self._index.get(key)

    def _append(self, line: bytes) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                view = memoryview(line)
                while view:
                    view = view[os.write(fd, view) :]
                os.fsync(fd)
            finally:
                os.close(fd)  # closing releases the flock


def _read(path: Path) -> dict[str, Record]:
    index: dict[str, Record] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            entry = json.loads(line)
            index[entry["request"]] = entry["completion"]
        except (ValueError, KeyError, TypeError):
            continue  # a line torn by a crash mid-write: that request is simply not recorded
    return index


_open: dict[Path, Cassette] = {}
_open_lock = threading.Lock()


def cassette_at(path: str) -> Cassette:
    """One Cassette per file in a process, so every caller shares its lock and index."""
    resolved = Path(path).expanduser().resolve()
    with _open_lock:
        return _open.setdefault(resolved, Cassette(resolved))
