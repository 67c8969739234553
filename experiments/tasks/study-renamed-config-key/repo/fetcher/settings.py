"""The fetcher's settings, from config/fetcher.toml."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

CONFIG_PATH = Path(__file__).resolve().parent.parent / "config" / "fetcher.toml"


@dataclass(frozen=True)
class HttpSettings:
    base_url: str
    timeout_s: float = 10.0
    max_retries: int = 2


def parse_settings(text: str) -> HttpSettings:
    """The settings in the text of a TOML file; a key left out takes its default."""
    http = tomllib.loads(text).get("http", {})
    if "base_url" not in http:
        raise ValueError("[http] base_url is required")
    return HttpSettings(
        base_url=http["base_url"],
        timeout_s=float(http.get("timeout_s", HttpSettings.timeout_s)),
        max_retries=int(http.get("retries", HttpSettings.max_retries)),
    )


def load_settings(path: Path = CONFIG_PATH) -> HttpSettings:
    return parse_settings(path.read_text(encoding="utf-8"))
