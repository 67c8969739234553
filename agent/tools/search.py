"""The search tool: where a text (or a regex) occurs in the workspace, as `path:line: text`.

In Python, in a thread (no ripgrep to install in every sandbox). Machinery (.git, caches),
binary files and files that lead outside the workspace are skipped.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agent.tools.context import ToolContext
from agent.tools.files import workspace_files
from agent.tools.output import MAX_OUTPUT_CHARS
from agent.tools.paths import resolve_in_workspace
from contracts.errors import InvalidPath, ToolError

MAX_MATCHES = 50
_MAX_LINE_CHARS = 160
# Larger files are skipped: generated data, not code a model edits.
_MAX_FILE_BYTES = 2 * 1024**2
# A NUL byte in a file's start marks it binary (as git and grep decide).
_BINARY_PROBE_BYTES = 8192


class SearchArgs(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # Undescribed: the names say it, and every prompt lists every tool's schema.
    pattern: str = Field(min_length=1)
    path: str = "."
    regex: bool = False


async def search(ctx: ToolContext, args: SearchArgs) -> str:
    root = resolve_in_workspace(ctx.workspace, args.path)
    try:
        matcher = re.compile(args.pattern if args.regex else re.escape(args.pattern))
    except re.error as error:
        raise ToolError(f"invalid regex {args.pattern!r}: {error}") from None
    if not root.exists():
        raise ToolError(f"no such file or directory: {args.path}")
    matches, total = await asyncio.to_thread(_search, ctx.workspace, root, matcher)
    if not total:
        return f"no matches for {args.pattern!r} in {args.path}"
    shown: list[str] = []
    used = 0
    for match in matches:
        used += len(match) + 1
        if used > MAX_OUTPUT_CHARS - 200:
            break
        shown.append(match)
    header = f"{total} matches for {args.pattern!r} in {args.path}"
    if len(shown) < total:
        header += f" (first {len(shown)} shown; search a narrower path for the rest)"
    return "\n".join([header, *shown])


def _search(workspace: Path, root: Path, matcher: re.Pattern[str]) -> tuple[list[str], int]:
    """The first MAX_MATCHES matching lines under `root`, as `path:line: text`, and how many
    lines match in all. Blocking."""
    base = workspace.resolve()
    names = [root.relative_to(base).as_posix()] if root.is_file() else workspace_files(workspace, root)
    found: list[str] = []
    total = 0
    for name in names:
        text = _text(base, name)
        if text is None:
            continue
        for number, line in enumerate(text.split("\n"), start=1):
            if matcher.search(line):
                total += 1
                if len(found) < MAX_MATCHES:
                    found.append(f"{name}:{number}: {_clip(line.strip())}")
    return found, total


def _text(base: Path, name: str) -> str | None:
    """A file's text, or None for a file not to search (binary, huge, or outside the workspace)."""
    try:
        # A symlink in the workspace may lead out of it: only what resolves inside is read.
        path = resolve_in_workspace(base, name)
        if path.stat().st_size > _MAX_FILE_BYTES:
            return None
        data = path.read_bytes()
    except (InvalidPath, OSError):
        return None
    if b"\x00" in data[:_BINARY_PROBE_BYTES]:
        return None
    return data.decode("utf-8", errors="replace")


def _clip(line: str) -> str:
    return line if len(line) <= _MAX_LINE_CHARS else line[:_MAX_LINE_CHARS] + " ..."
