"""Where this checkout of the project is, and paths as a run's input carries them. Not
configuration: the same on every machine that runs this checkout, so the core may use it."""

from __future__ import annotations

from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent.parent


def in_project(path: Path) -> str:
    """A path as a run's input carries it: relative to the project when it is inside it, so a
    worker in another checkout of the project (a container's /app) reads the same file in its
    own. Anything else stays absolute."""
    try:
        return path.resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return str(path)


def project_path(given: str) -> Path:
    """A path from a run's input, on this machine: one relative to the project is in this
    checkout of it (see in_project)."""
    path = Path(given)
    return path if path.is_absolute() else PROJECT_ROOT / path
