"""Workspace file tools. Blocking file I/O runs in a thread, off the event loop.

Files they create belong to the workspace's owner, so commands (which a root worker runs as
that owner in the sandbox) can still edit them.
"""

from __future__ import annotations

import asyncio
import os
import stat
import uuid
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from agent.tools.context import ToolContext
from agent.tools.output import truncate
from agent.tools.paths import resolve_in_workspace
from contracts.errors import ToolError

# Never shown to a model: machinery, not content.
_HIDDEN_DIRS = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
_MAX_LISTED = 500


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadFileArgs(_Arguments):
    path: str = Field(description="File path relative to the workspace root.")


class WriteFileArgs(_Arguments):
    path: str = Field(description="File path relative to the workspace root.")
    content: str = Field(description="The file's complete new content.")


class ReplaceInFileArgs(_Arguments):
    path: str = Field(description="File path relative to the workspace root.")
    old: str = Field(min_length=1, description="Exact text to replace.")
    new: str = Field(description="Replacement text.")
    count: int | None = Field(
        default=None, ge=1, description="Replace only the first `count` occurrences; all if omitted."
    )


class ListFilesArgs(_Arguments):
    path: str = Field(default=".", description="Directory relative to the workspace root.")


async def read_file(ctx: ToolContext, args: ReadFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)
    text = await asyncio.to_thread(_read_text, target, args.path)
    return truncate(text)[0]


async def write_file(ctx: ToolContext, args: WriteFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)
    await asyncio.to_thread(_write_text, ctx.workspace, target, args.content, args.path)
    return f"wrote {len(args.content)} characters to {args.path}"


async def replace_in_file(ctx: ToolContext, args: ReplaceInFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)

    def replace() -> int:
        text = _read_text(target, args.path, strict=True)
        found = text.count(args.old)
        if found == 0:
            raise ToolError(f"text to replace not found in {args.path}")
        replaced = found if args.count is None else min(found, args.count)
        _write_text(ctx.workspace, target, text.replace(args.old, args.new, replaced), args.path)
        return replaced

    replaced = await asyncio.to_thread(replace)
    return f"replaced {replaced} occurrence(s) in {args.path}"


async def list_files(ctx: ToolContext, args: ListFilesArgs) -> str:
    root = resolve_in_workspace(ctx.workspace, args.path)
    if not root.is_dir():
        raise ToolError(f"not a directory: {args.path}")
    files = await asyncio.to_thread(workspace_files, ctx.workspace, root)
    shown = files[:_MAX_LISTED]
    more = f"\n... and {len(files) - _MAX_LISTED} more" if len(files) > _MAX_LISTED else ""
    return "\n".join(shown) + more if shown else "(no files)"


def workspace_files(workspace: Path, under: Path | None = None) -> list[str]:
    """The workspace's files under `under` (default: all), as sorted relative POSIX paths,
    without machinery (.git, caches). Blocking."""
    base = workspace.resolve()
    found: list[str] = []
    for path in sorted((under or base).rglob("*")):
        relative = path.relative_to(base)
        if _HIDDEN_DIRS.intersection(relative.parts) or not path.is_file():
            continue
        found.append(relative.as_posix())
    return found


def _write_text(workspace: Path, target: Path, text: str, shown_as: str) -> None:
    """All or nothing: the text is encoded before anything is touched, written beside the
    target, then renamed over it, so a failure never leaves a file empty or half written."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolError(f"content for {shown_as} is not valid text ({error.reason} at {error.start})") from None
    owner = workspace.stat()
    _make_dirs(target.parent, owner)
    scratch = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}.tmp")
    try:
        scratch.write_bytes(data)
        if target.exists():
            os.chmod(scratch, stat.S_IMODE(target.stat().st_mode))
        _give(scratch, owner)
        os.replace(scratch, target)
    finally:
        scratch.unlink(missing_ok=True)


def _make_dirs(directory: Path, owner: os.stat_result) -> None:
    missing = []
    while not directory.exists():
        missing.append(directory)
        directory = directory.parent
    for path in reversed(missing):
        path.mkdir()
        _give(path, owner)


def _give(path: Path, owner: os.stat_result) -> None:
    if os.geteuid() == 0 and (owner.st_uid, owner.st_gid) != (0, 0):
        os.chown(path, owner.st_uid, owner.st_gid)


def _read_text(target: Path, shown_as: str, strict: bool = False) -> str:
    """A file's text. `strict` refuses files that are not UTF-8, so an edit never
    rewrites bytes it could not read."""
    if not target.is_file():
        raise ToolError(f"no such file: {shown_as}")
    data = target.read_bytes()
    try:
        return data.decode("utf-8", errors="strict" if strict else "replace")
    except UnicodeDecodeError as error:
        raise ToolError(f"{shown_as} is not UTF-8 text ({error.reason} at byte {error.start})") from None
