"""URL normalisation, so one page is one bookmark however its URL was typed."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

_DEFAULT_PORTS = {"http": 80, "https": 443}


def normalize_url(url: str) -> str:
    """Lowercase scheme and host, no default port, no fragment, no trailing slash on the path.

    Raises ValueError for anything that is not an absolute http(s) URL.
    """
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        raise ValueError(f"not an absolute http(s) URL: {url!r}")
    host = parts.hostname.lower()
    if parts.port is not None and parts.port != _DEFAULT_PORTS[scheme]:
        host = f"{host}:{parts.port}"
    path = parts.path.rstrip("/")
    return urlunsplit((scheme, host, path, parts.query, ""))
