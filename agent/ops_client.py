"""One way to call the operations service (ops_service), for the tools that act on
it and for the code that seeds and reads a world: the tenant header, timeouts, and what a
failure means.

    a URL no retry can fix          ToolError
    refused, reset, timed out       ToolUnavailable: the request may or may not have arrived;
                                    only a retry (under the same idempotency key) can tell
"""

from __future__ import annotations

from typing import Any

import httpx

from contracts.errors import ToolError, ToolUnavailable

# Connecting to a local service is instant or hopeless; an answer may wait on a write lock.
TIMEOUT = httpx.Timeout(10.0, connect=2.0)


async def ops_request(
    url: str, method: str, path: str, *, world_id: str, idempotency_key: str | None = None, body: Any = None
) -> httpx.Response:
    headers = {"X-Tenant": world_id}
    if idempotency_key is not None:
        headers["Idempotency-Key"] = idempotency_key
    try:
        async with httpx.AsyncClient(base_url=url, headers=headers, timeout=TIMEOUT) as client:
            return await client.request(method, path, json=body)
    except (httpx.UnsupportedProtocol, httpx.InvalidURL) as error:
        # Checked before TransportError, which UnsupportedProtocol is: no retry fixes a bad URL.
        raise ToolError(f"AGENT_LAB_OPS_URL {url!r} is not a usable http URL: {error}") from None
    except httpx.TransportError as error:
        raise ToolUnavailable(f"operations service unreachable at {url}: {type(error).__name__}: {error}") from None


def error_message(response: httpx.Response) -> str:
    """The service's own words for a failure (its JSON `error`), else the start of the body."""
    try:
        body = response.json()
    except ValueError:
        return response.text[:500] or response.reason_phrase
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        return body["error"]
    return response.text[:500]
