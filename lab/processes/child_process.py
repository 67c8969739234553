"""Children that must not outlive the lab process that started them: a server, a worker, a
baseline attempt. Without this, a starter or experiment stopped by a signal (which skips its
clean-up) would leave them running, polling a server that is gone or holding a port."""

from __future__ import annotations

import ctypes
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child before exec (`preexec_fn`): ask Linux to send SIGTERM when the parent dies."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
