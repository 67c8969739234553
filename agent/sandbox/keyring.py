"""A fresh, empty session keyring for every sandboxed command.

Kernel keyrings are not namespaced, and a process inherits its parent's session keyring and
possesses every key in it. bubblewrap makes no new one, so a command could read whatever the
worker's session keyring holds (a workspace script's `KEYCTL_READ` printed a key planted there).
The child that becomes bubblewrap joins a new anonymous session keyring before the exec: the
command, and everything it starts, inherits that one, which holds nothing. The seccomp filter
(`agent.sandbox.seccomp`) also denies the keyring calls; either wall alone closes the leak.

There is no Python binding for keyctl(2), and glibc has no wrapper: the call goes through
syscall(2), by the number of this architecture's table.
"""

from __future__ import annotations

import ctypes
import errno
from collections.abc import Callable

from agent.sandbox.syscalls import Architecture

KEYCTL_JOIN_SESSION_KEYRING = 1
# The worker itself cannot use keyrings: the kernel has none, or a filter above the worker
# (a container's) denies the calls, and every descendant inherits that filter. Nothing to leak.
_NO_KEYRINGS = frozenset({errno.ENOSYS, errno.EPERM})


def fresh_session_keyring(arch: Architecture) -> Callable[[], None]:
    """What the child calls before exec; prepared here, so that the child only makes the call.

    It raises when the kernel refuses a new keyring for another reason (the user's key quota):
    the command then does not start (subprocess reports an exception in preexec_fn) rather
    than start with the worker's keyring."""
    # A library handle of our own: argtypes set on the shared one would change it for others.
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long
    syscall.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p]
    number = arch.number("keyctl")

    def join() -> None:
        # NULL name: a new anonymous keyring, not one shared by name with other processes.
        if syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
            error = ctypes.get_errno()
            if error not in _NO_KEYRINGS:
                raise OSError(error, "the command could not get a fresh session keyring")

    return join
