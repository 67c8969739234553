"""A workspace's content, as one digest: two fingerprints are equal when no file was added,
removed or changed. What a tool cannot read back (caches a test run leaves) does not count."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_IGNORED_DIRS = frozenset({"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"})


def workspace_fingerprint(workspace: Path) -> str:
    """Blocking: it reads every file. Symlinks count by their target's text, not its content."""
    digest = hashlib.sha256()
    for directory, subdirs, files in os.walk(workspace):
        subdirs[:] = sorted(name for name in subdirs if name not in _IGNORED_DIRS)
        for name in sorted(files):
            if name.endswith(".pyc"):
                continue
            path = Path(directory) / name
            relative = path.relative_to(workspace).as_posix()
            digest.update(relative.encode() + b"\0")
            if path.is_symlink():
                digest.update(b"-> " + os.readlink(path).encode())
            else:
                try:
                    digest.update(path.read_bytes())
                except OSError as error:  # unreadable: its state is what can be seen of it
                    digest.update(f"unreadable: {error.strerror}".encode())
            digest.update(b"\0")
    return digest.hexdigest()
