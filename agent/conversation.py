"""A subtask's turns, stored once each in the artifact store and chained, newest first: the
durable runtime hands a model call the reference of the subtask's latest turn, not every turn so
far. Sent by value, the turns made each step's proposal input longer than the last (O(N^2)
bytes of Temporal history over a run; temporalio/sdk-python#1890 is a run stopped at 50 MB by
exactly that); by reference, a step adds the same few hundred bytes however long the run.

A stored turn is `{"previous": REF | null, "turn": {...}}` in canonical JSON, named by its
sha256: storing it again (a retried activity) writes nothing new, and a chain cannot be edited
without its references changing.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict

from pydantic import BaseModel

from agent.artifacts import ArtifactStore
from contracts import Turn


class StoredTurn(BaseModel):
    previous: str | None
    turn: Turn


def store_turn(store: ArtifactStore, previous: str | None, turn: Turn) -> str:
    """The reference of `turn` after the chain whose latest turn is `previous` (None: the first)."""
    stored = StoredTurn(previous=previous, turn=turn).model_dump(mode="json")
    data = json.dumps(stored, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    return store.put_bytes(data).sha256


# Chains this process has read, by their latest turn's reference: a chain is immutable (its
# reference names its whole past), so the next step's read is its one new turn plus this, not
# the whole chain again (O(N^2) file reads over a run). A few hundred runs' chains.
_CHAINS: OrderedDict[str, tuple[Turn, ...]] = OrderedDict()
_CHAINS_KEPT = 256
_CHAINS_LOCK = threading.Lock()


def load_turns(store: ArtifactStore, latest: str | None) -> list[Turn]:
    """The turns of the chain that ends at `latest`, oldest first. Each turn not read before is
    read from the store and checked against its name (ArtifactStore.get_bytes)."""
    newest_first: list[Turn] = []
    reference = latest
    known: tuple[Turn, ...] = ()
    while reference is not None:
        with _CHAINS_LOCK:
            known = _CHAINS.get(reference, ())
            if known:
                _CHAINS.move_to_end(reference)
                break
        stored = StoredTurn.model_validate_json(store.get_bytes(reference))
        newest_first.append(stored.turn)
        reference = stored.previous
    chain = known + tuple(reversed(newest_first))
    if latest is not None:
        with _CHAINS_LOCK:
            _CHAINS[latest] = chain
            _CHAINS.move_to_end(latest)
            while len(_CHAINS) > _CHAINS_KEPT:
                _CHAINS.popitem(last=False)
    return list(chain)
