"""The search tool's matcher, run as a process of its own: `python -I -S search_process.py`,
a request as JSON on stdin, one JSON line per event on stdout.

Why a process: Python's `re` backtracks, so a pattern like `(a+)+$` takes exponential time on
a line that almost matches, and `re` holds the GIL all the while (the worker's event loop and
heartbeats stop too); a thread cannot be stopped. A process can: the tool kills it at its
deadline. The `regex` package's `timeout=` was tried: its own compiler expands nested counted
repetition (`((a{100}){100}){100}` did not compile in a minute), which no timeout covers;
google-re2 is linear-time but has another syntax (no lookaround, ASCII `\\w`), so the same
pattern would find other lines. This process runs `re` itself: the lines found are the ones
`re` always found. It imports only the standard library (`-I`: no environment, no user site,
no current directory on its path), reads only regular files, without following a symlink or
blocking, and caps its own memory and CPU time should its parent die.

Events: {"file": i} before the i-th file; {"match": "path:line: text"} for each of the first
`matches`; {"cut": i} when a file had more lines than `lines`; {"stopped": "bytes"} when
`total_bytes` were searched; {"invalid": "why"} for a pattern that does not compile; and last
{"total": n}, the number of matching lines.
"""

from __future__ import annotations

import json
import os
import re
import resource
import stat
import sys
from typing import Any

# A NUL byte in a file's start marks it binary (as git and grep decide).
_BINARY_PROBE_BYTES = 8192


def main() -> None:
    request = json.loads(sys.stdin.buffer.read())
    limits: dict[str, int] = request["limits"]
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu_s"], limits["cpu_s"]))
    try:
        matcher = re.compile(request["pattern"] if request["regex"] else re.escape(request["pattern"]))
    except (re.error, RecursionError, OverflowError, ValueError, MemoryError) as error:
        _say(invalid=str(error))
        return
    total = searched = 0
    for index, (shown, path) in enumerate(request["files"]):
        _say(file=index)
        data = _content(path, limits["file_bytes"])
        if data is None:
            continue
        searched += len(data)
        if searched > limits["total_bytes"]:
            _say(stopped="bytes")
            break
        text = data.decode("utf-8", errors="replace")
        start = 0
        for number in range(1, limits["lines"] + 2):
            if number > limits["lines"]:
                _say(cut=index)
                break
            end = text.find("\n", start)
            line = text[start:] if end < 0 else text[start:end]
            if matcher.search(line):
                total += 1
                if total <= limits["matches"]:
                    _say(match=f"{shown}:{number}: {_clip(line.strip(), limits['line_chars'])}")
            if end < 0:
                break
            start = end + 1
    _say(total=total)


def _content(path: str, limit: int) -> bytes | None:
    """A regular file's bytes; None for anything else, a larger file or a binary one."""
    try:
        info = os.lstat(path)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    try:
        opened = os.fstat(descriptor)
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
            return None
        pieces = []
        left = limit + 1
        while left > 0 and (piece := os.read(descriptor, left)):
            pieces.append(piece)
            left -= len(piece)
        data = b"".join(pieces)
    except OSError:
        return None
    finally:
        os.close(descriptor)
    if len(data) > limit or b"\x00" in data[:_BINARY_PROBE_BYTES]:
        return None
    return data


def _clip(line: str, limit: int) -> str:
    return line if len(line) <= limit else line[:limit] + " ..."


def _say(**event: Any) -> None:
    sys.stdout.buffer.write(json.dumps(event).encode() + b"\n")
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
