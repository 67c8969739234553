"""Idempotent creation: a key names one request; the same key again gets the same answer.

The request's fingerprint (its validated fields, canonical JSON) is stored beside the key,
so a key reused for a *different* request is refused instead of silently answered with the
first request's resource.

A resource's id derives from its key too (`resource_id`): unique in its tenant as the key is,
whatever rows a fork copied in.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any

from ops_service.errors import BadRequest, Conflict

MAX_KEY_LENGTH = 255


def fingerprint(request: Any) -> str:
    return json.dumps(dataclasses.asdict(request), sort_keys=True, separators=(",", ":"))


def resource_id(prefix: str, key: str) -> str:
    """The id of the resource made under `key`. Not a count of the tenant's rows: a fork holds
    some of its parent's rows, ids included, so a count names ids it holds (`rf_2` when it holds
    the parent's second refund but not its first). A key is unique in its tenant, so the id is;
    a fork's own keys are not its parent's, so its new resources never share an id with the
    parent's; and a copied row, made under the same key, keeps the id it would get anyway. 64
    bits of sha256: a collision would be a 409 (database.Database.writing), not a wrong row."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{prefix}_{digest[:16]}"


def require_key(key: str | None) -> str:
    if not key or not key.strip():
        raise BadRequest("the Idempotency-Key header is required")
    if len(key) > MAX_KEY_LENGTH:
        raise BadRequest(f"the Idempotency-Key header is longer than {MAX_KEY_LENGTH} characters")
    return key


def check_same_request(stored: str | None, request: Any, key: str) -> None:
    if stored != fingerprint(request):
        raise Conflict(f"idempotency key {key!r} was already used for a different request")
