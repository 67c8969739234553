"""Application settings, read from config/app.ini."""

from __future__ import annotations

import configparser
from dataclasses import dataclass
from pathlib import Path

CONFIG_PATH = Path(__file__).resolve().parent.parent / "config" / "app.ini"


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    debug: bool = False
    database_url: str = "sqlite:///app.db"
    pool_size: int = 5
    timeout_s: float = 30.0
    features: tuple[str, ...] = ()


def parse_settings(text: str) -> Settings:
    """Settings from the text of an INI file; a missing section or key takes its default."""
    parser = configparser.ConfigParser()
    parser.read_string(text)
    defaults = Settings()
    enabled = parser.get("features", "enabled", fallback="")
    return Settings(
        host=parser.get("server", "host", fallback=defaults.host),
        port=parser.getint("server", "port", fallback=defaults.port),
        debug=parser.getboolean("server", "debug", fallback=defaults.debug),
        database_url=parser.get("database", "url", fallback=defaults.database_url),
        pool_size=parser.getint("database", "pool_size", fallback=defaults.pool_size),
        timeout_s=parser.getfloat("database", "timeout_s", fallback=defaults.timeout_s),
        features=tuple(name.strip() for name in enabled.split(",") if name.strip()),
    )


def load_settings(path: Path = CONFIG_PATH) -> Settings:
    return parse_settings(path.read_text(encoding="utf-8"))
