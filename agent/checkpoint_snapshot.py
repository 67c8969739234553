"""A workspace written into its checkpoint repository as one commit, read from Python.

The tree is walked with agent.hostile_tree (iterative, depth-capped, no symlink followed,
only regular files opened, never blocking) and fed to one `git fast-import` process: the
blobs git does not hold yet, then a commit naming every file. Git sees bytes, never the
workspace, so nothing in it (a nested repository, a `gitdir:` file, attributes, hooks, config)
can make git run anything. One process a checkpoint, where `hash-object` and `mktree` would
take a process per changed file and per directory.

What is stored: regular files up to MAX_FILE_BYTES (100755 when the owner may execute them),
symlinks as links (their target text, never followed), and `.git` entries as the ordinary
content they are to us (nothing ever checks a checkpoint out with git, so their names are
harmless; a rollback puts a nested repository back as it was). What is not: caches a test run
leaves (never worth a checkpoint, and two subtasks' caches would conflict in a merge), and,
named in the commit's trailers for the model to be told, larger files, FIFOs, sockets,
devices, unreadable files and directories past the walk's depth cap.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from agent.checkpoint_blobs import Index, blob_id
from agent.checkpoint_git import AUTHOR, Git, keep_packs_few
from agent.hostile_tree import MAX_DEPTH, Entry, EntryKind, NotRegularFile, WalkTooLong, read_regular, walk
from contracts.checkpoints import Checkpoint, LeftOut
from contracts.errors import CheckpointError

# A source tree's files are far smaller; a file this large is data or a build output, and
# storing every rewrite of it would grow the repository by its size each step.
MAX_FILE_BYTES = 8 << 20
LEFT_OUT_TRAILER = "Lab-Left-Out"
LEFT_OUT_MORE_TRAILER = "Lab-Left-Out-More"
# How many left-out entries a commit names; the rest are counted.
_NAMED = 50
_CACHES = frozenset({"__pycache__", ".pytest_cache"})


def never_stored(name: str) -> bool:
    return name in _CACHES or name.endswith(".pyc")


def commit_workspace(
    git: Git, workspace: Path, ref: str, parent: str | None, subject: str, trailers: list[str]
) -> Checkpoint:
    """Commit the workspace as it is onto `ref` (after `parent`), with `subject` and
    `trailers` and the left-out entries as its message. CheckpointError if git fails or the
    walk runs past the git's deadline."""
    index = Index(git.git_dir if git.git_dir.is_dir() else None)
    files: list[tuple[bytes, bytes]] = []  # (mode, path)
    references: list[bytes] = []  # a blob id, or a mark for a blob sent in this stream
    left_out: list[LeftOut] = []
    with git.process("fast-import", "--quiet", "--done", "--date-format=raw") as importer:
        assert importer.stdin is not None and importer.stdout is not None
        send = importer.stdin.write
        try:
            for entry in walk(workspace, skip=never_stored, deadline=git.deadline):
                stored = _stored(workspace, entry, index, left_out)
                if stored is None:
                    continue
                mode, oid, data = stored
                if data is not None and oid not in index.stored_ids:
                    mark = b":%d" % (len(references) + 2)  # :1 is the commit
                    send(b"blob\nmark %s\ndata %d\n%s\n" % (mark, len(data), data))
                    index.stored_ids.add(oid)
                    references.append(mark)
                else:
                    references.append(oid.encode())
                index.add(entry.relative, mode.decode(), oid, entry.stat if mode != b"120000" else None)
                files.append((mode, os.fsencode(entry.relative)))
        except WalkTooLong:
            raise CheckpointError(
                f"the workspace {workspace.name} holds too many files to checkpoint in the time a step has: "
                "remove what can be made again (dependencies, build outputs, generated data)"
            ) from None
        message = _message(subject, trailers, left_out)
        send(b"commit %s\nmark :1\n" % ref.encode())
        stamp = b"%s <%s> %d +0000\n" % (AUTHOR[0].encode(), AUTHOR[1].encode(), int(time.time()))
        send(b"author " + stamp + b"committer " + stamp)
        send(b"data %d\n%s\n" % (len(message), message))
        if parent is not None:
            send(b"from %s\n" % parent.encode())
        send(b"deleteall\n")
        send(
            b"".join(
                b"M %s %s %s\n" % (mode, reference, _quoted(path))
                for (mode, path), reference in zip(files, references, strict=True)
            )
        )
        send(b"\nget-mark :1\n")
        importer.stdin.flush()
        commit = importer.stdout.readline().strip().decode("ascii", "replace")
        send(b"done\n")
    if len(commit) != 40:
        raise CheckpointError(f"git fast-import gave no commit for {workspace.name} ({commit!r})")
    # Only now: every blob the index names is in the repository.
    index.save(commit)
    keep_packs_few(git)
    named, more = left_out[:_NAMED], max(len(left_out) - _NAMED, 0)
    return Checkpoint(commit=commit, left_out=named, more_left_out=more)


def _stored(
    workspace: Path, entry: Entry, index: Index, left_out: list[LeftOut]
) -> tuple[bytes, str, bytes | None] | None:
    """(mode, blob id, content or None when the id is known to be stored), or None for an
    entry the checkpoint does not hold (noted in `left_out` if the model should know)."""
    relative, info = entry.relative, entry.stat
    if entry.kind is EntryKind.DIRECTORY:
        if entry.cut:
            # Cut at the depth cap, or not listable (gone, unreadable, a path past PATH_MAX).
            deep = relative.count("/") + 1 >= MAX_DEPTH
            reason = "too_deep" if deep else "unreadable"
            left_out.append(LeftOut(path=shown(relative), reason=reason, limit=MAX_DEPTH if deep else 0))
        return None
    if entry.kind is EntryKind.SPECIAL:
        left_out.append(LeftOut(path=shown(relative), reason="special"))
        return None
    if entry.kind is EntryKind.SYMLINK:
        try:
            target = os.readlink(os.fsencode(workspace / relative))
        except OSError:
            return None  # gone meanwhile
        return b"120000", blob_id(target), target
    mode = b"100755" if info.st_mode & 0o100 else b"100644"
    if info.st_size > MAX_FILE_BYTES:
        left_out.append(LeftOut(path=shown(relative), reason="too_large", size=info.st_size, limit=MAX_FILE_BYTES))
        return None
    known = index.known(relative, info)
    if known is not None:
        return mode, known, None
    try:
        data = read_regular(workspace / relative, MAX_FILE_BYTES + 1)
    except NotRegularFile:
        left_out.append(LeftOut(path=shown(relative), reason="special"))
        return None
    except FileNotFoundError:
        return None
    except OSError:
        left_out.append(LeftOut(path=shown(relative), reason="unreadable"))
        return None
    if len(data) > MAX_FILE_BYTES:  # grew since the walk saw it
        left_out.append(LeftOut(path=shown(relative), reason="too_large", size=len(data), limit=MAX_FILE_BYTES))
        return None
    return mode, blob_id(data), data


def shown(relative: str) -> str:
    """A workspace path as the model and the ledger can carry it: undecodable bytes escaped,
    a path hundreds of levels deep shortened."""
    text = relative.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text if len(text) <= 160 else f"{text[:100]}...{text[-50:]}"


def _message(subject: str, trailers: list[str], left_out: list[LeftOut]) -> bytes:
    lines = list(trailers)
    lines += [f"{LEFT_OUT_TRAILER}: {entry.model_dump_json()}" for entry in left_out[:_NAMED]]
    if len(left_out) > _NAMED:
        lines.append(f"{LEFT_OUT_MORE_TRAILER}: {len(left_out) - _NAMED}")
    body = "\n".join(lines)
    return f"{subject}\n\n{body}\n".encode() if body else f"{subject}\n".encode()


def left_out_in(message: str) -> tuple[list[LeftOut], int]:
    """The left-out entries a checkpoint's message names, and how many more it counted."""
    named: list[LeftOut] = []
    more = 0
    for line in message.splitlines():
        key, _, value = line.partition(": ")
        if key == LEFT_OUT_TRAILER:
            named.append(LeftOut.model_validate(json.loads(value)))
        elif key == LEFT_OUT_MORE_TRAILER:
            more = int(value)
    return named, more


def _quoted(path: bytes) -> bytes:
    """A path as fast-import reads it: C-quoted when it must be (a line feed, a leading quote)."""
    if b"\n" not in path and not path.startswith(b'"'):
        return path
    escaped = b"".join(
        b"\\" + bytes([byte]) if byte in b'"\\' else b"\\%03o" % byte if byte < 0x20 or byte == 0x7F else bytes([byte])
        for byte in path
    )
    return b'"' + escaped + b'"'
