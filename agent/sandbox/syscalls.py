"""The system-call numbers the sandbox's seccomp filter and keyring reset need, per architecture.

A seccomp filter matches calls by number, and numbers differ between architectures: a filter
built with the wrong table denies the wrong calls. So only architectures whose table is written
here are supported, and any other is refused by name (`native`), never guessed. x86_64's numbers
are those of `arch/x86/entry/syscalls/syscall_64.tbl`; aarch64 uses the kernel's generic table
(`include/uapi/asm-generic/unistd.h`). tests/test_sandbox_leaks.py checks both against the
kernel headers where they are installed.
"""

from __future__ import annotations

import platform
import struct
import sys
from dataclasses import dataclass

from contracts.errors import SandboxUnavailable

# Numbers both tables share (every call added since Linux 5.1 has one number everywhere).
_COMMON = {
    "open_tree": 428,
    "move_mount": 429,
    "fsopen": 430,
    "fsconfig": 431,
    "fsmount": 432,
    "fspick": 433,
    "clone3": 435,
    "mount_setattr": 442,
    "io_uring_setup": 425,
    "io_uring_enter": 426,
    "io_uring_register": 427,
}


@dataclass(frozen=True)
class Architecture:
    name: str
    # What the kernel reports in seccomp_data.arch for a call made through this ABI.
    audit_arch: int
    numbers: dict[str, int]
    # Set in the number of a call made through x86_64's x32 ABI: a second numbering that
    # would reach every call by another number, so the filter refuses the whole ABI.
    x32_bit: int | None = None

    def number(self, name: str) -> int:
        return self.numbers[name]


X86_64 = Architecture(
    name="x86_64",
    audit_arch=0xC000003E,  # EM_X86_64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
    x32_bit=0x40000000,
    numbers=_COMMON
    | {
        "clone": 56,
        "uselib": 134,
        "ustat": 136,
        "sysfs": 139,
        "pivot_root": 155,
        "_sysctl": 156,
        "acct": 163,
        "settimeofday": 164,
        "mount": 165,
        "umount2": 166,
        "swapon": 167,
        "swapoff": 168,
        "reboot": 169,
        "iopl": 172,
        "ioperm": 173,
        "init_module": 175,
        "delete_module": 176,
        "quotactl": 179,
        "lookup_dcookie": 212,
        "clock_settime": 227,
        "kexec_load": 246,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "unshare": 272,
        "perf_event_open": 298,
        "name_to_handle_at": 303,
        "open_by_handle_at": 304,
        "clock_adjtime": 305,
        "setns": 308,
        "finit_module": 313,
        "kexec_file_load": 320,
        "bpf": 321,
        "userfaultfd": 323,
    },
)

AARCH64 = Architecture(
    name="aarch64",
    audit_arch=0xC00000B7,  # EM_AARCH64 | __AUDIT_ARCH_64BIT | __AUDIT_ARCH_LE
    numbers=_COMMON
    | {
        "lookup_dcookie": 18,
        "umount2": 39,
        "mount": 40,
        "pivot_root": 41,
        "quotactl": 60,
        "acct": 89,
        "unshare": 97,
        "kexec_load": 104,
        "init_module": 105,
        "delete_module": 106,
        "clock_settime": 112,
        "reboot": 142,
        "settimeofday": 170,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "clone": 220,
        "swapon": 224,
        "swapoff": 225,
        "perf_event_open": 241,
        "name_to_handle_at": 264,
        "open_by_handle_at": 265,
        "clock_adjtime": 266,
        "setns": 268,
        "finit_module": 273,
        "bpf": 280,
        "userfaultfd": 282,
        "kexec_file_load": 294,
    },
)

_BY_MACHINE = {"x86_64": X86_64, "amd64": X86_64, "aarch64": AARCH64, "arm64": AARCH64}


def native() -> Architecture:
    """This machine's architecture, if its table is here; else SandboxUnavailable, by name."""
    machine = platform.machine().lower()
    found = _BY_MACHINE.get(machine)
    # A 32-bit or big-endian userland on a 64-bit kernel makes its calls through another ABI,
    # which the filter would refuse wholesale: unsupported too, and said so.
    if found is None or struct.calcsize("P") != 8 or sys.byteorder != "little":
        raise SandboxUnavailable(
            f"bubblewrap's seccomp filter has syscall numbers for x86_64 and aarch64 only, not for "
            f"this {machine or 'unknown'} {struct.calcsize('P') * 8}-bit {sys.byteorder}-endian userland: "
            f"refusing to load a filter that would deny the wrong calls"
        )
    return found
