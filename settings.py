"""Settings read from the environment, for the starter, workers and activities.

Workflow code never imports this module: workflows get everything through their input.
"""

from __future__ import annotations

import os
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parent
DEFAULT_TEMPORAL_ADDRESS = "localhost:7233"
DEFAULT_UI_URL = "http://localhost:8233"


def data_dir() -> Path:
    """Where runs keep their state: workspaces, the dev server's database, reports."""
    return Path(os.environ.get("AGENT_LAB_DATA", PROJECT_ROOT / "data")).resolve()


def temporal_address() -> str:
    return os.environ.get("TEMPORAL_ADDRESS", DEFAULT_TEMPORAL_ADDRESS)


def temporal_address_is_explicit() -> bool:
    """An address the user chose is never replaced by an embedded server."""
    return "TEMPORAL_ADDRESS" in os.environ


def temporal_namespace() -> str:
    return os.environ.get("TEMPORAL_NAMESPACE", "default")


def temporal_ui_url() -> str:
    return os.environ.get("TEMPORAL_UI_URL", DEFAULT_UI_URL).rstrip("/")
