"""Where a model server lives."""

from __future__ import annotations

import ipaddress
from urllib.parse import urlparse


def is_loopback(base_url: str | None) -> bool:
    """A server on this machine (a local llama.cpp, a test server): no API key is needed."""
    host = urlparse(base_url or "").hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
