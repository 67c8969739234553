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
from typing import Self

from pydantic import Field, model_validator

from agent.tools import indentation
from agent.tools.arguments import ToolArguments
from agent.tools.context import ToolContext
from agent.tools.file_reads import PYTHON_EDIT_MAX_BYTES, ReadFileArgs, read_file, read_text
from agent.tools.listing import ListFilesArgs, list_files, workspace_files
from agent.tools.nearest import not_found_message
from agent.tools.paths import resolve_in_workspace
from agent.tools.syntax import PYTHON_SUFFIXES, check_edit, syntax_error
from agent.tools.viewer import split_lines, view
from contracts.errors import SyntaxCheckFailed, TextNotFound, ToolError

# The tools' public surface: reads and listings live in their own modules.
__all__ = [
    "EditLinesArgs",
    "ListFilesArgs",
    "ReadFileArgs",
    "ReplaceInFileArgs",
    "WriteFileArgs",
    "edit_lines",
    "list_files",
    "read_file",
    "replace_in_file",
    "workspace_files",
    "write_file",
]

# Lines shown around an edit, before and after it.
_CONTEXT_LINES = 2


class WriteFileArgs(ToolArguments):
    path: str = Field(description="File path relative to the workspace root.")
    content: str = Field(description="The file's complete new content.")


class ReplaceInFileArgs(ToolArguments):
    path: str = Field(description="File path relative to the workspace root.")
    old: str = Field(min_length=1, description="Exact text to replace.")
    new: str = Field(description="Replacement text.")
    count: int | None = Field(
        default=None, ge=1, description="Replace only the first `count` occurrences; all if omitted."
    )


class EditLinesArgs(ToolArguments):
    path: str = Field(description="File path relative to the workspace root.")
    start_line: int = Field(ge=1)
    end_line: int = Field(ge=0, description="start_line - 1 inserts")
    new: str

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if self.end_line < self.start_line - 1:
            raise ValueError("end_line is before start_line")
        return self


async def write_file(ctx: ToolContext, args: WriteFileArgs) -> str:
    target = resolve_in_workspace(ctx.workspace, args.path)

    def write() -> str:
        _check_target(ctx.workspace, target, args.path)
        old = _old_source(target, args.path)
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


# The same edit with its indentation fitted: (the new text, what the tool did, where it was
# fitted to), or None when it has no fitted form that compiles.
Fit = Callable[[str], "tuple[str, str, str] | None"]


def _edit(workspace: Path, target: Path, shown_as: str, change: Callable[[str], tuple[str, str]], fit: Fit) -> str:
    """Read, change, check, write: an edit that fails its check leaves the file untouched.
    `change` gives the new text and what it did; that is returned, with the check's warning
    if any. `fit` is tried when the edit as written would be refused. Blocking."""
    old = read_text(target, shown_as, strict=True)
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
    """All or nothing: the text is encoded before anything is touched, written to a scratch
    file beside the target (inside the workspace: the target's parent is checked to be a
    directory in it), then renamed over it, so a failure never leaves a file empty or half
    written."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolError(f"content for {shown_as} is not valid text ({error.reason} at {error.start})") from None
    _check_target(workspace, target, shown_as)
    owner = workspace.stat()
    scratch = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        _make_dirs(target.parent, owner, shown_as)
        # O_EXCL | O_NOFOLLOW: never through a name the workspace planted meanwhile.
        descriptor = os.open(scratch, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o666)
        with os.fdopen(descriptor, "wb") as out:
            out.write(data)
        existing = os.lstat(target) if os.path.lexists(target) else None
        if existing is not None and stat.S_ISREG(existing.st_mode):
            os.chmod(scratch, stat.S_IMODE(existing.st_mode))
        _give(scratch, owner)
        os.replace(scratch, target)
    except OSError as error:
        raise ToolError(f"cannot write {shown_as}: {error.strerror or error}") from None
    finally:
        scratch.unlink(missing_ok=True)


def _check_target(workspace: Path, target: Path, shown_as: str) -> None:
    """Refuses, before anything is written, a target that is the workspace itself or a
    directory, or whose parent is not inside the workspace (the scratch file goes there)."""
    root = workspace.resolve()
    if target == root or not target.parent.is_relative_to(root):
        raise ToolError(f"{shown_as} is the workspace itself: write_file needs a file path, such as notes.txt")
    if target.is_dir():
        raise ToolError(f"{shown_as} is a directory: write_file needs a file path inside it")


def _old_source(target: Path, shown_as: str) -> str | None:
    """What write_file replaces, as far as the syntax check needs it: the text of a Python
    file there (its check tells a repair from a new break). Nothing else is read: not a FIFO
    or socket (the rename replaces it unopened), nor a file too large to compile (the new
    content is judged as a new file's)."""
    if target.suffix not in PYTHON_SUFFIXES:
        return None
    try:
        info = os.lstat(target)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or info.st_size > PYTHON_EDIT_MAX_BYTES:
        return None
    return read_text(target, shown_as)


def _make_dirs(directory: Path, owner: os.stat_result, shown_as: str) -> None:
    missing = []
    while not os.path.lexists(directory):
        missing.append(directory)
        directory = directory.parent
    if not stat.S_ISDIR(os.lstat(directory).st_mode):
        raise ToolError(f"cannot write {shown_as}: a part of its path is a file, not a directory")
    for path in reversed(missing):
        path.mkdir()
        _give(path, owner)


def _give(path: Path, owner: os.stat_result) -> None:
    if os.geteuid() == 0 and (owner.st_uid, owner.st_gid) != (0, 0):
        os.chown(path, owner.st_uid, owner.st_gid)
