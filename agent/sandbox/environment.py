"""The environment a command sees: nothing inherited, so no secret of the worker leaks in."""

from __future__ import annotations

import sys
from pathlib import Path


def interpreter_bin() -> str:
    """The lab's own interpreter comes first on PATH, so `python -m pytest` in a fixture runs
    on the same Python (and pytest) the lab runs on."""
    return str(Path(sys.executable).parent)


def command_environment(home: str) -> dict[str, str]:
    return {
        "PATH": f"{interpreter_bin()}:/usr/local/bin:/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        # A task's tests run with its own pytest configuration, not the lab's plugins.
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
    }
