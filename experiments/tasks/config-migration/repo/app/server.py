"""Startup helpers that read the settings."""

from __future__ import annotations

from app.settings import Settings


def bind_address(settings: Settings) -> str:
    return f"{settings.host}:{settings.port}"


def feature_enabled(settings: Settings, name: str) -> bool:
    return name in settings.features


def startup_banner(settings: Settings) -> str:
    mode = "debug" if settings.debug else "production"
    features = ", ".join(settings.features) or "none"
    return f"listening on {bind_address(settings)} ({mode}); features: {features}"
