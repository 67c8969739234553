"""Workspace file tools. Blocking file I/O runs in a thread, off the event loop.

Files they create belong to the workspace's owner, so commands (which a root worker runs as
that owner in the sandbox) can still edit them.
"""

from __future__ import annotations

import asyncio
import os
import stat
import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Annotated, Any, Self

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema, model_validator

from agent.tools import indentation
from agent.tools.context import ToolContext
from agent.tools.nearest import not_found_message
from agent.tools.output import MAX_OUTPUT_CHARS
from agent.tools.paths import resolve_in_workspace
from agent.tools.syntax import check_edit, syntax_error
from agent.tools.viewer import split_lines, view
from contracts.errors import SyntaxCheckFailed, TextNotFound, ToolError

# Never shown to a model: machinery, not content.
_HIDDEN_DIRS = frozenset({".git", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})
_MAX_LISTED = 500
# Lines shown around an edit, before and after it.
_CONTEXT_LINES = 2


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


# An optional line number, shown to a model as a plain integer: a small model's prompt has no
# room for an Optional's `anyOf` and its null default. Fields a name explains go undescribed
# (every prompt lists every tool's schema).
OptionalLine = Annotated[
    Annotated[int, Field(ge=1)] | None, WithJsonSchema({"type": "integer"}), Field(json_schema_extra=_no_default)
]


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReadFileArgs(_Arguments):
    path: str = Field(description="File path relative to the workspace root.")
    start_line: OptionalLine = None
    end_line: OptionalLine = None

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.start_line is not None and self.end_line is not None and self.end_line < self.start_line:
            raise ValueError("end_line is before start_line")
        return self


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


class EditLinesArgs(_Arguments):
    path: str = Field(description="File path relative to the workspace root.")
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=0, description="start_line - 1 inserts")
    new: str

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end_line < self.start_line - 1:
            raise ValueError("end_line is before start_line")
        return self


class ListFilesArgs(_Arguments):
    path: str = Field(default=".", description="Directory relative to the workspace root.")


async def read_file(ctx: ToolContext, args: ReadFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)
    text = await asyncio.to_thread(_read_text, target, args.path)
    return view(args.path, split_lines(text), args.start_line or 1, args.end_line)


async def write_file(ctx: ToolContext, args: WriteFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)

    def write() -> str:
        old = _read_text(target, args.path) if target.is_file() else None
        content, said, warning = _checked(
            args.path,
            old,
            (args.content, f"wrote {len(args.content)} characters to {args.path}"),
            lambda: _fitted(args.content, indentation.shifted(args.content, "", ""), "column 1", args.path),
        )
        _write_text(ctx.workspace, target, content, args.path)
        return _with(said, warning)

    return await asyncio.to_thread(write)


async def replace_in_file(ctx: ToolContext, args: ReplaceInFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)

    def replace(text: str, new: str = args.new) -> tuple[str, str]:
        found = text.count(args.old)
        if found == 0:
            raise TextNotFound(not_found_message(args.path, text, args.old))
        replaced = found if args.count is None else min(found, args.count)
        return text.replace(args.old, new, replaced), f"replaced {replaced} occurrence(s) in {args.path}"

    def fit(text: str) -> tuple[str, str, str] | None:
        # One place to fit to: occurrences at different indentations would need different fits.
        if text.count(args.old) != 1 and args.count != 1:
            return None
        position = text.find(args.old)
        line = text.count("\n", 0, position) + 1
        return _fitted(text, indentation.fitted_at(text, position, args.new), f"line {line}", args.path, replace)

    return await asyncio.to_thread(_edit, ctx.workspace, target, args.path, replace, fit)


async def edit_lines(ctx: ToolContext, args: EditLinesArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)

    def fit(text: str) -> tuple[str, str, str] | None:
        block = indentation.fitted_lines(split_lines(text), args.start_line, args.new)
        if block is None:
            return None
        change = partial(_replace_lines, args.model_copy(update={"new": block}))
        return _fitted(text, block, f"line {args.start_line}", args.path, lambda text, _: change(text))

    return await asyncio.to_thread(_edit, ctx.workspace, target, args.path, partial(_replace_lines, args), fit)


async def list_files(ctx: ToolContext, args: ListFilesArgs) -> str:
    root = resolve_in_workspace(ctx.workspace, args.path)
    if not root.is_dir():
        raise ToolError(f"not a directory: {args.path}")
    files = await asyncio.to_thread(workspace_files, ctx.workspace, root)
    shown: list[str] = []
    used = 0
    for name in files[:_MAX_LISTED]:
        used += len(name) + 1
        if used > MAX_OUTPUT_CHARS - 100:
            break
        shown.append(name)
    more = f"\n... and {len(files) - len(shown)} more (list a subdirectory)" if len(files) > len(shown) else ""
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


# The same edit with its indentation fitted: (the new text, what the tool did, where it was
# fitted to), or None when it has no fitted form that compiles.
Fit = Callable[[str], "tuple[str, str, str] | None"]


def _edit(workspace: Path, target: Path, shown_as: str, change: Callable[[str], tuple[str, str]], fit: Fit) -> str:
    """Read, change, check, write: an edit that fails its check leaves the file untouched.
    `change` gives the new text and what it did; that is returned, with the check's warning
    if any. `fit` is tried when the edit as written would be refused. Blocking."""
    old = _read_text(target, shown_as, strict=True)
    new, said, warning = _checked(shown_as, old, change(old), lambda: fit(old))
    _write_text(workspace, target, new, shown_as)
    return _with(said, warning)


def _checked(
    shown_as: str, old: str | None, edited: tuple[str, str], fit: Callable[[], tuple[str, str, str] | None]
) -> tuple[str, str, str | None]:
    """The text to write, what the tool did and the check's warning: the edit as written if
    it passes the syntax check, else its fitted form (agent.tools.indentation); else the
    refusal, for the edit as written."""
    new, said = edited
    try:
        return new, said, check_edit(shown_as, new, old)
    except SyntaxCheckFailed:
        fitted = fit()
        if fitted is None:
            raise
        error = syntax_error(new, shown_as)
        reason = f"line {error.lineno}: {error.msg}" if error is not None else "a syntax error"
        return fitted[0], indentation.told(fitted[1], fitted[2], reason), None


def _fitted(
    text: str, block: str | None, where: str, shown_as: str, change: Callable[[str, str], tuple[str, str]] | None = None
) -> tuple[str, str, str] | None:
    """The edit made with the fitted `block` instead (`change` makes it in `text`; without one
    `block` is the whole file), if it compiles."""
    if block is None:
        return None
    new, said = change(text, block) if change is not None else (block, f"wrote {len(block)} characters to {shown_as}")
    if syntax_error(new, shown_as) is not None:
        return None
    return new, said, where


def _replace_lines(args: EditLinesArgs, text: str) -> tuple[str, str]:
    """`text` with lines start..end replaced, and the edited region as the model will see it."""
    old_lines = split_lines(text)
    if args.start_line > len(old_lines) + 1 or args.end_line > len(old_lines):
        asked = f"lines {args.start_line}-{args.end_line}"
        raise ToolError(f"{args.path} has {len(old_lines)} lines: {asked} are not in it")
    new_lines = split_lines(args.new)
    if new_lines and not new_lines[-1].endswith("\n") and (args.end_line < len(old_lines) or text.endswith("\n")):
        new_lines[-1] += "\r\n" if old_lines[0].endswith("\r\n") else "\n"
    lines = old_lines[: args.start_line - 1] + new_lines + old_lines[args.end_line :]
    if args.end_line < args.start_line:
        said = f"inserted {len(new_lines)} lines before line {args.start_line} of {args.path}"
    else:
        said = f"replaced lines {args.start_line}-{args.end_line} of {args.path} with {len(new_lines)} lines"
    if not lines:
        return "", f"{said}; it is now empty"
    first = min(max(args.start_line - _CONTEXT_LINES, 1), len(lines))
    last = args.start_line + len(new_lines) - 1 + _CONTEXT_LINES
    return "".join(lines), f"{said}; now:\n{view(args.path, lines, first, last)}"


def _with(said: str, warning: str | None) -> str:
    return f"{said}\n{warning}" if warning else said


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
