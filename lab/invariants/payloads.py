"""The values a history's payloads hold, read without a worker: JSON inline, or a reference to
the artifact store (`host/converter.py` keeps payloads of 2 KB or more there). The caller hands
in the store the run's workers wrote to (its Dependencies' `artifacts`).

A payload that cannot be read raises one of UNREADABLE: ArtifactMissing when its artifact is not
in that store, ValueError when it is not what it should be. The caller leaves that
fact out and says so, rather than guessing.
"""

from __future__ import annotations

import json
from typing import TypeVar

from google.protobuf.message import DecodeError
from pydantic import BaseModel, JsonValue, ValidationError
from temporalio.api.common.v1 import Payload, Payloads

from agent.artifacts import ArtifactStore
from contracts.errors import ArtifactMissing

Model = TypeVar("Model", bound=BaseModel)

UNREADABLE = (ValueError, ArtifactMissing)
_REFERENCE = b"temporal.api.sdk.v1.ExternalStorageReference"
_JSON = (b"json/plain", b"json/protobuf")


def decode(payload: Payload, artifacts: ArtifactStore) -> JsonValue:
    if payload.metadata.get("messageType") == _REFERENCE:
        return decode(_stored(payload, artifacts), artifacts)
    encoding = payload.metadata.get("encoding", b"")
    if encoding == b"binary/null":
        return None
    if encoding not in _JSON:
        raise ValueError(f"a payload encoded as {encoding.decode(errors='replace')!r}")
    try:
        value: JsonValue = json.loads(payload.data)
    except ValueError:
        raise ValueError("a payload that is not JSON") from None
    return value


def first(payloads: Payloads, model: type[Model], artifacts: ArtifactStore) -> Model | None:
    """The first payload as `model`; None when there is none."""
    if not payloads.payloads:
        return None
    value = decode(payloads.payloads[0], artifacts)
    try:
        return model.model_validate(value)
    except ValidationError:
        raise ValueError(f"a payload that is not a {model.__name__}") from None


def _stored(reference: Payload, artifacts: ArtifactStore) -> Payload:
    """The payload a reference names, from `artifacts` (ArtifactMissing when it is not there)."""
    try:
        sha256 = json.loads(reference.data)["claimData"]["sha256"]
    except (ValueError, KeyError, TypeError):
        raise ValueError("a reference to the artifact store that names no artifact") from None
    stored = Payload()
    try:
        stored.ParseFromString(artifacts.get_bytes(sha256))
    except DecodeError:
        raise ValueError(f"artifact {sha256[:16]}... is not a payload") from None
    return stored
