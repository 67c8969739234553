"""Bytes handed to bubblewrap through pipes it reads at start-up (`--seccomp FD`,
`--ro-bind-data FD DEST`): each command gets its own copy, nothing is written to the host's
disk, and nothing is left behind.

Every pipe is filled before the command starts and its write end closed, so bubblewrap reads
to the end without waiting for anyone. The data must fit in a pipe's buffer at once: writes
never block (the event loop builds these), and a pipe of a user past the kernel's
`pipe-user-pages-soft` holds only one page, so that is the most handed over through one.
"""

from __future__ import annotations

import os
from types import TracebackType

# One page: what any pipe holds, however many pipes the user already has.
MAX_BYTES = 4096


class Handoff:
    """Open while the command runs: `fds` go to the child (`pass_fds`), and close after."""

    def __init__(self) -> None:
        self._fds: list[int] = []

    @property
    def fds(self) -> tuple[int, ...]:
        return tuple(self._fds)

    def pipe(self, data: bytes) -> int:
        """A descriptor the child reads `data` from; its number is what bubblewrap is told."""
        if len(data) > MAX_BYTES:
            raise ValueError(f"{len(data)} bytes do not fit in one page of a pipe ({MAX_BYTES})")
        read_fd, write_fd = os.pipe()
        self._fds.append(read_fd)
        try:
            os.set_blocking(write_fd, False)
            written = os.write(write_fd, data)
        finally:
            os.close(write_fd)
        if written != len(data):
            raise OSError(f"a pipe took {written} of {len(data)} bytes")
        return read_fd

    def close(self) -> None:
        for fd in self._fds:
            os.close(fd)
        self._fds = []

    def __enter__(self) -> Handoff:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.close()
