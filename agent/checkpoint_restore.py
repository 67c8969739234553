"""A checkpoint's tree put back into a workspace, from Python: what the checkpoint does not
hold is removed, what differs is written, what already matches is left alone.

Git only lists the tree (`ls-tree`) and hands over blob contents (`cat-file --batch`); it
never sees the workspace. The workspace is hostile, so:
- every path is opened one component at a time, relative to its parent's descriptor, with
  O_NOFOLLOW: a symlink the agent planted where a directory was is never followed, and a file
  is written only after whatever stood at its name was removed (O_EXCL: never through a link);
- trees are removed iteratively with at most two directory descriptors open at a time (a tree
  1,000 levels deep neither overflows Python's stack nor the process's descriptors), going back
  up through `..` only after checking it is the directory we came down from;
- the walk is agent.hostile_tree's (depth-capped: a directory past the cap is removed whole
  and made again from the checkpoint);
- what is created belongs to the workspace's owner, the user the sandbox runs commands as.
An older checkpoint may hold a gitlink (a nested repository's commit, as `git add` stored it):
its directory is left as it is.
"""

from __future__ import annotations

import contextlib
import os
import stat
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from agent.checkpoint_blobs import Index, blob_id, file_blob_id
from agent.checkpoint_git import Git
from agent.hostile_tree import Entry, EntryKind, NotRegularFile, WalkTooLong, walk
from contracts.errors import CheckpointError

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
_GITLINK = "160000"
_SYMLINK = "120000"
_EXECUTABLE = "100755"


@dataclass(frozen=True)
class Wanted:
    mode: str
    oid: str


def restore(git: Git, workspace: Path, commit: str, owner: tuple[int, int] | None) -> None:
    """Make `workspace` exactly `commit`'s tree. `owner`: who created entries belong to (None:
    whoever runs this). CheckpointError if git or the workspace refuses."""
    index = Index(git.git_dir if git.git_dir.is_dir() else None)
    listed = index.listing(commit) or _listing(git, commit)
    wanted = {path: Wanted(mode, oid) for path, (mode, oid) in listed.items()}
    directories = _directories(wanted)
    kept = {path for path, want in wanted.items() if want.mode == _GITLINK}
    missing = {path: want for path, want in wanted.items() if want.mode != _GITLINK}
    try:
        root = os.open(workspace, _DIRECTORY)
    except OSError as error:
        raise CheckpointError(f"cannot open the workspace {workspace}: {error.strerror}") from None
    chain = _Chain(root, owner)
    try:
        for entry in walk(workspace, deadline=git.deadline):
            if kept and any(parent in kept for parent in (*_parents(entry.relative), entry.relative)):
                continue
            if entry.kind is EntryKind.DIRECTORY and entry.relative in directories and not entry.cut:
                continue
            want = missing.get(entry.relative)
            if want is not None and _matches(workspace, entry, want, index):
                del missing[entry.relative]
                index.add(entry.relative, want.mode, want.oid, entry.stat if want.mode != _SYMLINK else None)
                continue
            _remove(chain, entry.relative, git)
        if missing:
            _write(git, chain, missing)
    except WalkTooLong:
        raise CheckpointError(
            f"the workspace {workspace.name} holds too many files to roll back in the time a step has"
        ) from None
    except OSError as error:
        raise CheckpointError(f"cannot restore {error.filename or workspace.name}: {error.strerror}") from None
    finally:
        chain.close()
    for path, want in [*missing.items(), *((path, wanted[path]) for path in kept)]:
        index.add(path, want.mode, want.oid, None)  # just written: its status is not to be trusted yet
    index.save(commit)


def _listing(git: Git, commit: str) -> dict[str, tuple[str, str]]:
    """Every path of the commit's tree, with its mode and blob (or gitlink) id."""
    try:
        listed = git.run("ls-tree", "-r", "-z", "--full-tree", f"{commit}^{{commit}}").stdout
    except CheckpointError as error:
        raise CheckpointError(f"no checkpoint {commit[:12]} to go back to ({error})") from None
    wanted: dict[str, tuple[str, str]] = {}
    for record in listed.split(b"\0"):
        if record:
            meta, _, path = record.partition(b"\t")
            mode, _, oid = meta.decode("ascii").split(" ")
            wanted[os.fsdecode(path)] = (mode, oid)
    return wanted


def _parents(path: str) -> list[str]:
    parts = path.split("/")
    return ["/".join(parts[:depth]) for depth in range(1, len(parts))]


def _directories(wanted: dict[str, Wanted]) -> set[str]:
    """Every directory the paths need (a parent seen once is not climbed again)."""
    found: set[str] = set()
    for path in wanted:
        end = path.rfind("/")
        while end > 0 and path[:end] not in found:
            found.add(path[:end])
            end = path.rfind("/", 0, end)
    return found


def _matches(workspace: Path, entry: Entry, want: Wanted, index: Index) -> bool:
    try:
        if want.mode == _SYMLINK or entry.kind is EntryKind.SYMLINK:
            if want.mode != _SYMLINK or entry.kind is not EntryKind.SYMLINK:
                return False
            return blob_id(os.readlink(os.fsencode(workspace / entry.relative))) == want.oid
        if entry.kind is not EntryKind.FILE or bool(entry.stat.st_mode & 0o100) != (want.mode == _EXECUTABLE):
            return False
        oid = index.known(entry.relative, entry.stat) or file_blob_id(workspace / entry.relative, entry.stat.st_size)
    except (NotRegularFile, OSError):
        return False
    return oid == want.oid


def _remove(chain: _Chain, relative: str, git: Git) -> None:
    *parents, name = relative.split("/")
    try:
        directory = chain.open(parents, make=False)
        info = os.lstat(name, dir_fd=directory)
    except FileNotFoundError:
        return  # gone with its directory
    if stat.S_ISDIR(info.st_mode):
        _remove_tree(directory, name, git)
    else:
        os.unlink(name, dir_fd=directory)


def _remove_tree(parent: int, name: str, git: Git) -> None:
    """Remove the directory `name` in `parent` and everything in it, at any depth, never
    following a link, with two descriptors open at a time."""
    here = os.open(name, _DIRECTORY, dir_fd=parent)
    names = [name]  # from `parent` down to `here`
    above: list[tuple[int, int]] = []  # (device, inode) of each directory above `here`
    pending: list[list[str]] = [_empty_but_directories(here)]
    try:
        while True:
            git.left()  # past the deadline: CheckpointError, the thread freed
            if pending[-1]:
                child = pending[-1].pop()
                below = os.open(child, _DIRECTORY, dir_fd=here)
                names.append(child)
                here_info = os.fstat(here)
                above.append((here_info.st_dev, here_info.st_ino))
                os.close(here)
                here = below
                pending.append(_empty_but_directories(here))
                continue
            pending.pop()
            if not above:
                os.close(here)
                here = -1
                os.rmdir(name, dir_fd=parent)
                return
            up = os.open("..", _DIRECTORY, dir_fd=here)
            up_info = os.fstat(up)
            os.close(here)
            here = up
            if (up_info.st_dev, up_info.st_ino) != above.pop():
                raise CheckpointError("the workspace changed while it was being rolled back")
            os.rmdir(names.pop(), dir_fd=here)
    finally:
        if here >= 0:
            os.close(here)


def _empty_but_directories(directory: int) -> list[str]:
    """Remove every entry of `directory` but its subdirectories; their names."""
    with contextlib.suppress(OSError):
        os.fchmod(directory, 0o700)  # a directory made read-only would refuse the removals
    with os.scandir(directory) as listing:
        found = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
    for entry_name, is_directory in found:
        if not is_directory:
            os.unlink(entry_name, dir_fd=directory)
    return [entry_name for entry_name, is_directory in found if is_directory]


def _write(git: Git, chain: _Chain, missing: dict[str, Wanted]) -> None:
    """Write each missing entry from its blob, read through one `cat-file --batch`."""
    with git.process("cat-file", "--batch") as objects:
        for relative in sorted(missing):
            want = missing[relative]
            *parents, name = relative.split("/")
            directory = chain.open(parents, make=True)
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name, dir_fd=directory)
            if want.mode == _SYMLINK:
                target = b"".join(_blob(objects, want.oid, limit=os.pathconf("/", "PC_PATH_MAX")))
                os.symlink(target, name, dir_fd=directory)
                if chain.owner is not None:
                    os.chown(name, *chain.owner, dir_fd=directory, follow_symlinks=False)
                continue
            descriptor = os.open(name, _NEW_FILE, 0o600, dir_fd=directory)
            try:
                for chunk in _blob(objects, want.oid):
                    view = memoryview(chunk)
                    while view:
                        view = view[os.write(descriptor, view) :]
                if chain.owner is not None:
                    os.fchown(descriptor, *chain.owner)
                os.fchmod(descriptor, 0o755 if want.mode == _EXECUTABLE else 0o644)
            finally:
                os.close(descriptor)


def _blob(objects: subprocess.Popen[bytes], oid: str, limit: int | None = None) -> Iterator[bytes]:
    """One blob's content, streamed from a running `cat-file --batch`."""
    assert objects.stdin is not None and objects.stdout is not None
    objects.stdin.write(oid.encode() + b"\n")
    objects.stdin.flush()
    header = objects.stdout.readline().split()
    if len(header) != 3 or header[1] != b"blob" or (limit is not None and int(header[2]) > limit):
        raise CheckpointError(f"the checkpoint's object {oid} is missing or not a file")
    left = int(header[2])
    while left:
        chunk = objects.stdout.read(min(left, 1 << 20))
        if not chunk:
            raise CheckpointError(f"git cat-file stopped before the end of {oid}")
        left -= len(chunk)
        yield chunk
    objects.stdout.read(1)  # the line feed after the content


class _Chain:
    """Descriptors of the directories from the root down to the last one opened: consecutive
    paths share most of them (the paths come sorted), and each is opened without following a
    link, so no component of a path can lead out of the workspace."""

    def __init__(self, root: int, owner: tuple[int, int] | None) -> None:
        self.root = root
        self.owner = owner
        self._open: list[tuple[str, int]] = []

    def open(self, parts: list[str], make: bool) -> int:
        shared = 0
        while shared < min(len(parts), len(self._open)) and self._open[shared][0] == parts[shared]:
            shared += 1
        for _, descriptor in reversed(self._open[shared:]):
            os.close(descriptor)
        del self._open[shared:]
        directory = self._open[-1][1] if self._open else self.root
        for part in parts[shared:]:
            try:
                below = os.open(part, _DIRECTORY, dir_fd=directory)
            except FileNotFoundError:
                if not make:
                    raise
                os.mkdir(part, 0o755, dir_fd=directory)
                below = os.open(part, _DIRECTORY, dir_fd=directory)
                if self.owner is not None:
                    os.fchown(below, *self.owner)
            self._open.append((part, below))
            directory = below
        return directory

    def close(self) -> None:
        for _, descriptor in self._open:
            os.close(descriptor)
        self._open.clear()
        os.close(self.root)
