"""Payloads a recorded history holds by reference (host/converter.py) are kept beside it, in
`tests/histories/artifacts/`, and put into the artifact store before it is replayed: a worker
replaying a history needs the store its run wrote to."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

from agent.dependencies_from_environment import from_environment

KEPT = Path(__file__).parent / "artifacts"
_REFERENCE = base64.b64encode(b"temporal.api.sdk.v1.ExternalStorageReference").decode()


def referenced(history: object) -> set[str]:
    """The sha256 of every payload a history (as JSON) holds by reference."""
    return set(_references(history))


def _references(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        if node.get("metadata", {}).get("messageType") == _REFERENCE:
            yield json.loads(base64.b64decode(node["data"]))["claimData"]["sha256"]
        for value in node.values():
            yield from _references(value)
    elif isinstance(node, list):
        for value in node:
            yield from _references(value)


def keep(history: object) -> None:
    """Copy what `history` refers to out of this machine's artifact store, next to it."""
    KEPT.mkdir(exist_ok=True)
    for sha256 in referenced(history):
        shutil.copyfile(from_environment().artifacts.path_of(sha256), KEPT / sha256)


def install() -> None:
    """Put every kept payload into the current artifact store (settings.data_dir)."""
    for kept in KEPT.glob("*"):
        target = from_environment().artifacts.path_of(kept.name)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(kept, target)
