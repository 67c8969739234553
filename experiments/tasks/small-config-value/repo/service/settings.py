"""The settings, read from config/service.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

CONFIG_PATH = Path(__file__).resolve().parent.parent / "config" / "service.toml"


def load_settings(path: Path = CONFIG_PATH) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))
