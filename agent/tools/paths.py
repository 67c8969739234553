"""Confinement of tool paths to the run's workspace."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from contracts.errors import InvalidPath, PathOutsideWorkspace

# Where commands see the workspace (the sandbox mounts it there, and `pwd` says so): a path
# under it names the same file a relative path does.
SANDBOX_ROOT = "/workspace"


def resolve_in_workspace(workspace: Path, relative: str) -> Path:
    """The real path of `relative` inside `workspace`, or PathOutsideWorkspace (InvalidPath
    for a path that cannot name a file at all).

    Absolute paths are refused (a model never knows where its workspace is on the host),
    except under /workspace, the workspace's name in the sandbox; the check runs on the
    resolved path, so `..` and symlinks cannot lead outside.
    """
    if not relative.strip():
        raise InvalidPath("empty path")
    if "\x00" in relative:
        raise InvalidPath(f"path {relative!r} contains a NUL byte")
    sandboxed = PurePosixPath(relative)
    if sandboxed.is_absolute() and sandboxed.parts[:2] == ("/", SANDBOX_ROOT.strip("/")):
        relative = str(PurePosixPath(*sandboxed.parts[2:])) if len(sandboxed.parts) > 2 else "."
    if PurePosixPath(relative).is_absolute() or relative.startswith("~"):
        raise PathOutsideWorkspace(f"absolute path {relative!r}: use a path relative to the workspace")
    root = workspace.resolve()
    try:
        target = (root / relative).resolve()
    except (RuntimeError, OSError) as error:
        # Python 3.11 raises RuntimeError on a symlink loop.
        raise InvalidPath(f"path {relative!r} cannot be resolved: {error}") from None
    if not target.is_relative_to(root):
        raise PathOutsideWorkspace(f"path {relative!r} resolves outside the workspace")
    return target
