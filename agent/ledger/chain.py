"""The hash chain: every ledger line carries the sha256 of its own content, `prev_hash` included.

Pure functions, no I/O. The hash is computed over the JSON fields *as written in the file*, not
over a re-serialization of the parsed model: a Pydantic upgrade that formats a datetime another
way must not invalidate the ledgers already on disk.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping

from pydantic import JsonValue

from agent.effects.keys import canonical_json
from contracts.ledger import LedgerEntry, LedgerEvent

# The `prev_hash` of a run's first event: there is nothing before it.
GENESIS_HASH = "0" * 64


def event_hash(fields: Mapping[str, JsonValue]) -> str:
    """sha256 of the canonical JSON of every field of an event except `hash` itself."""
    material = canonical_json({name: value for name, value in fields.items() if name != "hash"})
    return hashlib.sha256(material.encode("ascii")).hexdigest()


def seal(entry: LedgerEntry, *, seq: int, worker: str, prev_hash: str) -> LedgerEvent:
    """The event that follows `prev_hash` in the chain, its hash computed."""
    fields: dict[str, JsonValue] = {
        **entry.model_dump(mode="json"),
        "seq": seq,
        "worker": worker,
        "prev_hash": prev_hash,
    }
    return LedgerEvent.model_validate({**fields, "hash": event_hash(fields)})


def encode_line(event: LedgerEvent) -> bytes:
    """One complete file line. The form of `canonical_json`, but strict: NaN or Infinity in a
    payload raises ValueError here, before anything is written, instead of producing a line
    that other JSON readers reject."""
    text = json.dumps(
        event.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    )
    return text.encode("ascii") + b"\n"
