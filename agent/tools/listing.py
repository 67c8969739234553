"""The workspace's files as a model sees them: the list_files tool, and the listing a prompt
starts with.

The walk is agent.hostile_tree's: iterative, no symlinked directory followed, cut at
MAX_DEPTH, stopped at a deadline. A FIFO, socket or device is not a file a tool can read, so it
is not listed; a directory the walk did not enter, or a walk stopped at its deadline, is said,
never silently left out.
"""

from __future__ import annotations

import asyncio
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from pydantic import Field

from agent.hostile_tree import MAX_DEPTH, EntryKind, WalkTooLong, deadline_in, walk
from agent.tools.arguments import ToolArguments
from agent.tools.context import ToolContext
from agent.tools.output import MAX_OUTPUT_CHARS
from agent.tools.paths import resolve_in_workspace
from contracts.errors import ToolError

# Never shown to a model: machinery, not content.
HIDDEN = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
LISTING_DEADLINE_S = 10.0
_MAX_LISTED = 500
# Names a listing keeps; past them files are only counted (a prompt shows a few dozen).
_MAX_KEPT = 20_000
_MAX_PATH_SHOWN = 120


class ListFilesArgs(ToolArguments):
    path: str = Field(default=".", description="Directory relative to the workspace root.")


@dataclass
class Listing:
    """Files as sorted workspace-relative POSIX paths (the first _MAX_KEPT), how many were
    found, the directories not entered, and whether the walk finished before its deadline
    (if not, `count` is a lower bound)."""

    files: list[str] = field(default_factory=list)
    count: int = 0
    cut: list[str] = field(default_factory=list)
    finished: bool = True


async def list_files(ctx: ToolContext, args: ListFilesArgs) -> str:
    root = resolve_in_workspace(ctx.workspace, args.path)
    if not root.is_dir():
        raise ToolError(f"not a directory: {args.path}")
    listing = await asyncio.to_thread(list_tree, ctx.workspace, root)
    notes = _notes(listing)
    room = MAX_OUTPUT_CHARS - 100 - sum(len(note) + 1 for note in notes)
    shown: list[str] = []
    used = 0
    for name in listing.files[:_MAX_LISTED]:
        used += len(name) + 1
        if used > room:
            break
        shown.append(name)
    if listing.count > len(shown):
        notes.append(f"... and {listing.count - len(shown)} more (list a subdirectory)")
    return "\n".join([*shown, *notes] if shown else ["(no files)", *notes])


def workspace_files(workspace: Path, under: Path | None = None) -> list[str]:
    """The workspace's files under `under` (default: all), as sorted relative POSIX paths,
    without machinery (.git, caches): the first _MAX_KEPT of them, those found before the
    listing's deadline. Blocking."""
    return list_tree(workspace, under).files


def list_tree(workspace: Path, under: Path | None = None) -> Listing:
    """The regular files under `under` (and symlinks to regular files, as a tool can read
    them), in a Listing. Blocking, for at most about LISTING_DEADLINE_S."""
    base = workspace.resolve()
    root = under or base
    prefix = root.relative_to(base).as_posix()
    prefix = "" if prefix == "." else prefix + "/"
    listing = Listing()
    if HIDDEN.intersection(PurePosixPath(prefix).parts):
        return listing
    try:
        for entry in walk(root, skip=HIDDEN.__contains__, deadline=deadline_in(LISTING_DEADLINE_S)):
            if entry.cut:
                listing.cut.append(prefix + entry.relative)
            elif entry.kind is EntryKind.FILE or (
                entry.kind is EntryKind.SYMLINK and _to_a_file(root / entry.relative)
            ):
                listing.count += 1
                if len(listing.files) < _MAX_KEPT:
                    listing.files.append(prefix + entry.relative)
    except WalkTooLong:
        listing.finished = False
    return listing


def _to_a_file(link: Path) -> bool:
    """Whether a symlink leads to a regular file (a stat, which never blocks, not an open)."""
    try:
        return stat.S_ISREG(os.stat(link).st_mode)
    except OSError:
        return False


def _notes(listing: Listing) -> list[str]:
    notes = []
    if listing.cut:
        first = listing.cut[0]
        if len(first) > _MAX_PATH_SHOWN:
            first = f"{first[:60]}...{first[-50:]}"
        why = f"deeper than {MAX_DEPTH} levels or unreadable"
        notes.append(f"({len(listing.cut)} directories not listed: {why}; the first: {first})")
    if not listing.finished:
        notes.append(
            f"(listing stopped after {LISTING_DEADLINE_S:.0f} s: there may be more files; list a subdirectory)"
        )
    return notes
