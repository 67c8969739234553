"""The seccomp filter every bubblewrap command runs under: the system calls a coding agent's
command never needs and that reach past the sandbox's walls, denied as Docker's default
profile denies them.

bubblewrap loads it (`--seccomp FD`) in the command's process just before the exec, after its
own setup, and every process the command starts inherits it; nothing can remove it. It is a
deny list, not Docker's allow list: a command may run any program a developer would, and what
it is refused is each for a reason:

- `keyctl`, `add_key`, `request_key` (EPERM): kernel keyrings are not namespaced. A process
  possesses the keys of the session keyring it inherited, so a command could read what its
  parent holds (a key planted in the worker's session keyring was printed by a workspace
  script), and `request_key` can make the kernel start a helper on the host. The command also
  starts in a fresh, empty session keyring (`agent.sandbox.keyring`): two walls.
- `unshare` and `clone` with any namespace flag, `setns` (EPERM); `clone3` (ENOSYS): a new
  user namespace gives the command every capability inside it, which opens kernel code an
  unprivileged user never reaches (mounts, netfilter, ...), the usual path of container
  escapes. `clone3` passes its flags in memory the filter cannot read, so it answers "not
  implemented", as under Docker: libc then falls back to `clone`, whose flags are checked.
  Threads and plain forks (clone without namespace flags) are untouched.
- `mount`, `umount2`, `pivot_root` and the new mount API (`open_tree`, `move_mount`, `fsopen`,
  `fsconfig`, `fsmount`, `fspick`, `mount_setattr`) (EPERM): the filesystem the command sees is
  bubblewrap's to make. They need a capability the command lacks; denied all the same, so
  none is reachable should a capability ever be gained.
- `bpf`, `perf_event_open`, `userfaultfd` (EPERM): reachable without privileges on many
  kernels and among the largest sources of kernel exploits (the BPF verifier; perf counters
  as side channels; userfaultfd to win kernel races at will).
- `io_uring_setup`, `io_uring_enter`, `io_uring_register` (ENOSYS): a second way into most of
  the kernel, with a long record of vulnerabilities; Docker denies it too. "Not implemented"
  makes libraries that try it (libuv, ...) fall back to ordinary calls.
- `open_by_handle_at`, `name_to_handle_at` (EPERM): opening a file by handle skips the path
  walk, and with it the mounts that confine the command (Docker's "shocker" escape).
- `init_module`, `finit_module`, `delete_module`, `kexec_load`, `kexec_file_load`, `reboot`,
  `swapon`, `swapoff`, `acct`, `quotactl`, `settimeofday`, `clock_settime`, `clock_adjtime`,
  and on x86_64 `iopl` and `ioperm` (EPERM): the host's kernel, devices, clock and
  accounting, not a command's business; each needs a capability the command lacks.
- `_sysctl`, `uselib`, `ustat`, `sysfs`, `lookup_dcookie` (EPERM): obsolete interfaces that
  nothing current calls, old kernel code denied as Docker denies it.

Allowed on purpose: `ptrace` and `process_vm_readv`/`writev` (debuggers and `strace` are
ordinary tools; the PID namespace leaves only the command's own processes to trace, and Docker
allows them on kernels since 4.8).

A call made through another ABI than the native one (i386's `int 0x80` on x86_64, or x86_64's
x32 numbering, which names every call by a second number) kills the process: the filter's
numbers are the native ABI's, and anything else would pass unchecked.
"""

from __future__ import annotations

import errno
import struct
from dataclasses import dataclass

from agent.sandbox.syscalls import Architecture

# Classic BPF, as <linux/filter.h> and <linux/seccomp.h> define it.
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JMP = 0x05
_JEQ, _JGE, _JSET = 0x10, 0x30, 0x40  # with BPF_K: compare with the constant
_RET = 0x06
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
# struct seccomp_data: int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6];
# the low half of the first argument, on the little-endian ABIs supported.
NR_OFFSET, ARCH_OFFSET, ARG0_OFFSET = 0, 4, 16
# A tracer sets the number to -1 to skip a call: no call, never a reason to kill.
_SKIPPED = 0xFFFFFFFF

# Every namespace clone(2) can create. Not CLONE_NEWTIME (0x80): in clone's flags the low byte
# is the exit signal, so that bit names a signal there; unshare(2) reads it as a namespace.
CLONE_NAMESPACES = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
UNSHARE_NAMESPACES = CLONE_NAMESPACES | 0x00000080


@dataclass(frozen=True)
class Denial:
    names: tuple[str, ...]
    errno: int
    # Denied only when the first argument has one of these bits (the call is otherwise fine).
    flags: int | None = None


DENIALS = (
    Denial(("keyctl", "add_key", "request_key"), errno.EPERM),
    Denial(("clone",), errno.EPERM, flags=CLONE_NAMESPACES),
    Denial(("unshare",), errno.EPERM, flags=UNSHARE_NAMESPACES),
    Denial(("setns",), errno.EPERM),
    Denial(("clone3",), errno.ENOSYS),
    Denial(
        ("mount", "umount2", "pivot_root", "open_tree", "move_mount", "fsopen", "fsconfig", "fsmount", "fspick"),
        errno.EPERM,
    ),
    Denial(("mount_setattr",), errno.EPERM),
    Denial(("bpf", "perf_event_open", "userfaultfd"), errno.EPERM),
    Denial(("io_uring_setup", "io_uring_enter", "io_uring_register"), errno.ENOSYS),
    Denial(("open_by_handle_at", "name_to_handle_at"), errno.EPERM),
    Denial(("init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load"), errno.EPERM),
    Denial(("reboot", "swapon", "swapoff", "acct", "quotactl"), errno.EPERM),
    Denial(("settimeofday", "clock_settime", "clock_adjtime", "iopl", "ioperm"), errno.EPERM),
    Denial(("_sysctl", "uselib", "ustat", "sysfs", "lookup_dcookie"), errno.EPERM),
)
# Calls that exist on x86_64 only; every other denied name must be in each table.
X86_ONLY = frozenset({"iopl", "ioperm", "_sysctl", "uselib", "ustat", "sysfs"})


def program(arch: Architecture) -> bytes:
    """The filter for `arch` as bubblewrap reads it: struct sock_filter entries, packed."""
    code = [
        _load(ARCH_OFFSET),
        _jump(_JEQ, arch.audit_arch, 1, 0),
        _ret(RET_KILL_PROCESS),
        _load(NR_OFFSET),
    ]
    if arch.x32_bit is not None:
        code += [_jump(_JGE, arch.x32_bit, 0, 2), _jump(_JEQ, _SKIPPED, 1, 0), _ret(RET_KILL_PROCESS)]
    for denial in DENIALS:
        answer = _ret(RET_ERRNO | denial.errno)
        for name in denial.names:
            if name in X86_ONLY and name not in arch.numbers:
                continue
            number = arch.number(name)
            if denial.flags is None:
                code += [_jump(_JEQ, number, 0, 1), answer]
            else:
                # The number is no longer in the accumulator once the argument is loaded, so
                # this call's verdict is final either way: denied, or allowed.
                code += [
                    _jump(_JEQ, number, 0, 4),
                    _load(ARG0_OFFSET),
                    _jump(_JSET, denial.flags, 0, 1),
                    answer,
                    _ret(RET_ALLOW),
                ]
    code.append(_ret(RET_ALLOW))
    return b"".join(code)


def _load(offset: int) -> bytes:
    return struct.pack("=HBBI", _LD_W_ABS, 0, 0, offset)


def _jump(kind: int, constant: int, if_true: int, if_false: int) -> bytes:
    return struct.pack("=HBBI", _JMP | kind, if_true, if_false, constant)


def _ret(action: int) -> bytes:
    return struct.pack("=HBBI", _RET, 0, 0, action)
