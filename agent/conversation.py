"""A task's turns, stored once each in the artifact store and chained, newest first: the
durable runtime hands a model call the reference of the task's latest turn, not every turn so
far. Sent by value, the turns made each step's proposal input longer than the last (O(N^2)
bytes of Temporal history over a run; temporalio/sdk-python#1890 is a run stopped at 50 MB by
exactly that); by reference, a step adds the same few hundred bytes however long the run.

A stored turn is `{"previous": REF | null, "turn": {...}}` in canonical JSON, named by its
sha256: storing it again (a retried activity) writes nothing new, and a chain cannot be edited
without its references changing.
"""

from __future__ import annotations

import json

from pydantic import BaseModel

from agent import artifacts
from contracts import Turn


class StoredTurn(BaseModel):
    previous: str | None
    turn: Turn


def store_turn(previous: str | None, turn: Turn) -> str:
    """The reference of `turn` after the chain whose latest turn is `previous` (None: the first)."""
    stored = StoredTurn(previous=previous, turn=turn).model_dump(mode="json")
    data = json.dumps(stored, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return artifacts.put_bytes(data).sha256


def load_turns(latest: str | None) -> list[Turn]:
    """The turns of the chain that ends at `latest`, oldest first."""
    turns: list[Turn] = []
    reference = latest
    while reference is not None:
        stored = StoredTurn.model_validate_json(artifacts.get_bytes(reference))
        turns.append(stored.turn)
        reference = stored.previous
    turns.reverse()
    return turns
