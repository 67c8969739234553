"""Fetching with retries."""

from __future__ import annotations

from collections.abc import Callable

from fetcher.settings import HttpSettings


class FetchFailed(Exception):
    pass


def fetch_with_retries(fetch: Callable[[str, float], bytes], path: str, settings: HttpSettings) -> bytes:
    """`fetch(url, timeout)` once, then up to `max_retries` more times while it raises OSError."""
    url = f"{settings.base_url}/{path}"
    attempts = 1 + settings.max_retries
    for _ in range(attempts):
        try:
            return fetch(url, settings.timeout_s)
        except OSError:
            continue
    raise FetchFailed(f"giving up on {url} after {attempts} attempts")
