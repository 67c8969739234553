"""The search tool: where a text (or a regex) occurs in the workspace, as `path:line: text`.

In Python (no ripgrep to install in every sandbox): the files are listed here, through
agent.hostile_tree's walk (machinery, special files and links out of the workspace left out),
and matched by `re` in a process of its own (agent/tools/search_process.py says why), killed
at SEARCH_DEADLINE_S. Binary files, files over 2 MiB, lines past the first 50,000 of a file
and bytes past the first 32 MiB in all are not searched; the answer says when any were left.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agent.tools import search_process
from agent.tools.context import ToolContext
from agent.tools.listing import Listing, list_tree
from agent.tools.output import MAX_OUTPUT_CHARS
from agent.tools.paths import resolve_in_workspace
from contracts.errors import InvalidPath, ToolError

MAX_MATCHES = 50
SEARCH_DEADLINE_S = 5.0
_LIMITS = {
    "matches": MAX_MATCHES,
    "line_chars": 160,
    # Larger files are skipped: generated data, not code a model edits.
    "file_bytes": 2 * 1024**2,
    "total_bytes": 32 * 1024**2,
    "lines": 50_000,
    # The matcher's own bounds, should the tool not be there to kill it.
    "memory_bytes": 1024**3,
    "cpu_s": int(SEARCH_DEADLINE_S) + 5,
}


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Undescribed: the names say it, and every prompt lists every tool's schema.
    pattern: str = Field(min_length=1)
    path: str = "."
    regex: bool = False


@dataclass
class _Found:
    matches: list[str] = field(default_factory=list)
    total: int = 0
    notes: list[str] = field(default_factory=list)


async def search(ctx: ToolContext, args: SearchArgs) -> str:
    root = resolve_in_workspace(ctx.workspace, args.path)
    files, listing = await asyncio.to_thread(_candidates, ctx.workspace, root, args.path)
    found = await _match(args.pattern, args.regex, files)
    found.notes.extend(_listing_notes(listing))
    if not found.total:
        return "\n".join([f"no matches for {args.pattern!r} in {args.path}", *found.notes])
    shown: list[str] = []
    used = sum(len(note) + 1 for note in found.notes)
    for match in found.matches:
        used += len(match) + 1
        if used > MAX_OUTPUT_CHARS - 200:
            break
        shown.append(match)
    header = f"{found.total} matches for {args.pattern!r} in {args.path}"
    if len(shown) < found.total:
        header += f" (first {len(shown)} shown; search a narrower path for the rest)"
    return "\n".join([header, *shown, *found.notes])


def _candidates(workspace: Path, root: Path, shown_as: str) -> tuple[list[tuple[str, str]], Listing | None]:
    """The files to search under `root`, as (workspace-relative name, real path), and the
    listing they come from (None for a single file). Blocking."""
    base = workspace.resolve()
    try:
        mode = os.lstat(root).st_mode
    except OSError:
        raise ToolError(f"no such file or directory: {shown_as}") from None
    if stat.S_ISREG(mode):
        return [(root.relative_to(base).as_posix(), str(root))], None
    if not stat.S_ISDIR(mode):
        raise ToolError(f"{shown_as} is neither a file nor a directory: search reads regular files only")
    listing = list_tree(workspace, root)
    files = []
    for name in listing.files:
        path = base / name  # the walk's own path: no symlink in it but perhaps the last part
        if not os.path.islink(path):
            files.append((name, str(path)))
            continue
        try:
            # A symlink in the workspace may lead out of it: only what resolves inside is read.
            files.append((name, str(resolve_in_workspace(base, name))))
        except InvalidPath:
            continue
    return files, listing


async def _match(pattern: str, regex: bool, files: list[tuple[str, str]]) -> _Found:
    request = json.dumps({"pattern": pattern, "regex": regex, "files": files, "limits": _LIMITS}).encode()
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-I",
        "-S",
        search_process.__file__,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        cwd="/",
        env={},
    )
    if process.stdin is None or process.stdout is None:  # never: both were asked for
        raise ToolError("search failed: its matcher has no pipes")
    found = _Found()
    at = -1
    try:
        async with asyncio.timeout(SEARCH_DEADLINE_S):
            process.stdin.write(request)
            await process.stdin.drain()
            process.stdin.close()
            while line := await process.stdout.readline():
                event = json.loads(line)
                if "file" in event:
                    at = event["file"]
                elif "match" in event:
                    found.matches.append(event["match"])
                elif "total" in event:
                    found.total = event["total"]
                elif "invalid" in event:
                    raise ToolError(f"invalid regex {pattern!r}: {event['invalid']}")
                elif "cut" in event:
                    found.notes.append(
                        f"(only the first {_LIMITS['lines']} lines of {files[event['cut']][0]} searched)"
                    )
                elif "stopped" in event:
                    found.notes.append(
                        f"(stopped after {_LIMITS['total_bytes'] // 1024**2} MiB of files: search a narrower path)"
                    )
            await process.wait()
    except TimeoutError:
        where = f" in {files[at][0]}" if 0 <= at < len(files) else ""
        raise ToolError(
            f"search stopped at its {SEARCH_DEADLINE_S:.0f} s limit{where}, after {len(found.matches)} matching lines: "
            "a regex with nested repetition, like (a+)+, can take exponential time; simplify the pattern or "
            "search a narrower path"
        ) from None
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    if process.returncode != 0:
        raise ToolError(f"search failed: its matcher exited with status {process.returncode} (out of memory?)")
    return found


def _listing_notes(listing: Listing | None) -> list[str]:
    if listing is None:
        return []
    notes = []
    if listing.cut:
        notes.append(f"({len(listing.cut)} directories too deep to search were left out)")
    if not listing.finished or listing.count > len(listing.files):
        notes.append("(not every file was searched: the directory holds too many; search a narrower path)")
    return notes
