"""How much a workspace holds, measured while a command runs in it, so that a command that
grows it past its quota is stopped (agent.sandbox.containment does the stopping).

Why a measurement and not a mount or a filesystem quota: a workspace is an ordinary directory
on the host's filesystem, which the lab's own file tools, git checkpoints and postcondition
checks use outside the sandbox, and which outlives the command. A size-limited mount of its own
(a loop image per workspace) would need root and a mount that every other reader of the
workspace goes through; a filesystem quota needs the filesystem made with quotas (the root
ext4 here has none) and a user per workspace on every host. So the bound is three parts:

- RLIMIT_FSIZE at most the quota: the kernel refuses to grow any one file past it (EFBIG),
  however fast it is written, so a single runaway file (`yes > f`) stops at the quota exactly;
- this walk, every tick of the watcher, counts bytes allocated (st_blocks, which is what
  fills a disk: a sparse file counts what it holds) and entries, hard links once; the command
  is stopped on the first tick past the quota, so what it writes over is one tick's worth;
- files the command deleted but still holds open (invisible to a walk) are counted from its
  processes' open descriptors, when its control group names them;
- between walks (a walk of a large tree takes long, and a writer writes meanwhile), two O(1)
  counts are checked every tick: the bytes the command's processes dirtied (`written`, from
  /proc/<pid>/io) and the filesystem's growth (statvfs). The first overstates what the
  command added (it counts rewrites), the second too while others write, so the command is
  stopped early only when both reach the quota; the second understates while others delete,
  and then the walk alone stops it.

How far past the quota a writer gets is what it writes between the last tick under the quota
and the stop, and a loaded machine makes ticks late. So a command is slowed as it nears the
quota (agent.sandbox.disk_pace): past a quarter of it, by the walk, or by the last walk plus
what the command dirtied since, its control group is capped at a tenth of a core; past the
whole quota by that own count, at a hundredth, until a walk judges. A walk that finds it back
under a quarter (what it dirtied was rewrites, or it removed files) lifts the cap. When one
quick count alone passes a quota (the filesystem's inode count for the file quota) the walk
is brought forward instead of waiting out its pause.

The sandbox's /tmp is a tmpfs of a fixed size (bubblewrap's --size): there the kernel refuses
the write (ENOSPC), with no overshoot at all.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from agent.hostile_tree import check_deadline


@dataclass(frozen=True)
class Footprint:
    bytes: int
    files: int

    def __sub__(self, other: Footprint) -> Footprint:
        return Footprint(self.bytes - other.bytes, self.files - other.files)


def measure(workspace: Path, pids: Iterable[int] = (), deadline: float | None = None) -> Footprint:
    """Bytes allocated and entries under `workspace`, plus deleted files on its filesystem
    still open in `pids`. Blocking, and as long as the tree is large: call it in a thread.
    Past `deadline` (a `time.monotonic()` value) it raises WalkTooLong: a caller on the host
    must not be held by a tree of millions of entries."""
    device = os.lstat(workspace).st_dev
    seen: set[tuple[int, int]] = set()
    total = files = 0
    pending = [str(workspace)]
    while pending:
        directory = pending.pop()
        try:
            entries = os.scandir(directory)
        except OSError:
            continue  # removed meanwhile, or unreadable by the worker (not as root)
        with entries:
            check_deadline(deadline, f"measuring {workspace}")
            for entry in entries:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                files += 1
                if files % 4096 == 0:
                    check_deadline(deadline, f"measuring {workspace}")
                if info.st_nlink > 1 and not stat.S_ISDIR(info.st_mode):
                    key = (info.st_dev, info.st_ino)
                    if key in seen:
                        continue
                    seen.add(key)
                total += info.st_blocks * 512
                if stat.S_ISDIR(info.st_mode) and info.st_dev == device:
                    pending.append(entry.path)
    return Footprint(total + _deleted_but_open(pids, device, seen), files)


def _deleted_but_open(pids: Iterable[int], device: int, seen: set[tuple[int, int]]) -> int:
    """`exec 3>f; rm f; yes >&3` fills the disk with a file no walk finds: its blocks are
    freed only when the last descriptor closes, so they count until then."""
    total = 0
    for pid in pids:
        try:
            descriptors = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in descriptors:
            try:
                info = os.stat(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            key = (info.st_dev, info.st_ino)
            if stat.S_ISREG(info.st_mode) and info.st_nlink == 0 and info.st_dev == device and key not in seen:
                seen.add(key)
                total += info.st_blocks * 512
    return total


def written(pids: Iterable[int]) -> int:
    """Bytes of storage the processes dirtied, less what they truncated before it was written
    back; a reaped child's count is in its parent's. Pages of a tmpfs are not counted."""
    total = 0
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/io").read_text().splitlines()
        except OSError:
            continue
        fields = dict(line.split(": ", 1) for line in lines if ": " in line)
        total += int(fields.get("write_bytes", 0)) - int(fields.get("cancelled_write_bytes", 0))
    return total


def fs_used(path: Path) -> int:
    """Bytes in use on the filesystem holding `path` (ext4 counts delayed allocations too)."""
    info = os.statvfs(path)
    return (info.f_blocks - info.f_bfree) * info.f_frsize


def fs_files(path: Path) -> int:
    """Inodes in use on the filesystem holding `path`: an O(1) count that overstates the files a
    command made (others make files too), so it only brings the walk forward."""
    info = os.statvfs(path)
    return info.f_files - info.f_ffree
