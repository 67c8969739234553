"""Settings read from the environment that more than one process uses: where the project and
its data are, the dev server's ports, the operations service. A worker's own settings (its
logs, metrics, traces, deployment, grace) are `host.settings`.

Workflow code never imports this module: workflows get everything through their input.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from contracts.errors import SettingsError

# Where the checkout is: not configuration, so it lives with the contracts (contracts.project); named
# here too for the commands and the lab that take it with the rest.
from contracts.project import PROJECT_ROOT as PROJECT_ROOT
from contracts.project import in_project as in_project
from contracts.project import project_path as project_path


def data_dir(env: Mapping[str, str] = os.environ) -> Path:
    """Where runs keep their state: workspaces, the dev server's database, reports."""
    return _resolved(env.get("AGENT_LAB_DATA", str(PROJECT_ROOT / "data")), os.getcwd())


@lru_cache(maxsize=64)
def _resolved(path: str, cwd: str) -> Path:
    # Every artifact read and write asks for the data directory: resolving it is a few
    # system calls each time, which a busy worker made thousands of times a second.
    return (Path(cwd) / path).resolve()


def dev_server_port() -> int:
    """The embedded dev server's gRPC port, used when TEMPORAL_ADDRESS is not set."""
    return _port("AGENT_LAB_DEV_PORT", 7233)


def dev_server_ui_port() -> int:
    return _port("AGENT_LAB_UI_PORT", 8233)


def temporal_ui_url() -> str:
    return (os.environ.get("TEMPORAL_UI_URL") or f"http://localhost:{dev_server_ui_port()}").rstrip("/")


def _port(name: str, default: int) -> int:
    raw = os.environ.get(name)
    if not raw:
        return default
    if not raw.isdigit() or not 0 < int(raw) < 65536:
        raise SettingsError(f"{name} must be a port number, not {raw!r}")
    return int(raw)


def ops_url(env: Mapping[str, str] = os.environ) -> str | None:
    """Base URL of the operations service the side-effecting tools call, if one is configured."""
    return env.get("AGENT_LAB_OPS_URL") or None
