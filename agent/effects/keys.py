"""Idempotency keys: the same call, retried, has the same key; any other call a different one."""

from __future__ import annotations

import hashlib
import json

from pydantic import JsonValue


def canonical_json(value: JsonValue) -> str:
    # ASCII escapes: arguments may hold lone surrogates (valid JSON, not encodable as UTF-8).
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def idempotency_key(run_id: str, step: int, tool: str, arguments: JsonValue) -> str:
    """sha256 over (run id, step, tool, canonical arguments), fields separated unambiguously."""
    material = canonical_json([run_id, step, tool, arguments])
    return hashlib.sha256(material.encode("utf-8")).hexdigest()
