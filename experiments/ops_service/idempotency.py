"""Idempotent creation: a key names one request; the same key again gets the same answer.

The request's fingerprint (its validated fields, canonical JSON) is stored beside the key,
so a key reused for a *different* request is refused instead of silently answered with the
first request's resource.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from experiments.ops_service.errors import BadRequest, Conflict

MAX_KEY_LENGTH = 255


def fingerprint(request: Any) -> str:
    return json.dumps(dataclasses.asdict(request), sort_keys=True, separators=(",", ":"))


def require_key(key: str | None) -> str:
    if not key or not key.strip():
        raise BadRequest("the Idempotency-Key header is required")
    if len(key) > MAX_KEY_LENGTH:
        raise BadRequest(f"the Idempotency-Key header is longer than {MAX_KEY_LENGTH} characters")
    return key


def check_same_request(stored: str | None, request: Any, key: str) -> None:
    if stored != fingerprint(request):
        raise Conflict(f"idempotency key {key!r} was already used for a different request")
