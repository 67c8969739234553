"""Planting a violation in a copy of a recorded run, for tests/test_invariants.py.

A ledger copy is sealed again line by line after the change, so that its hash chain verifies
and only the planted fact is wrong (except where a test breaks the chain on purpose). A history
copy is edited as Temporal's JSON: a payload is decoded, changed and encoded again, and events
moved or removed are numbered again with every reference to an event id kept pointing at it.
"""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from agent.ledger import GENESIS_HASH, encode_line, seal
from contracts.ledger import LedgerEntry

Json = dict[str, Any]


# --- ledgers -------------------------------------------------------------------------------------


def ledger_lines(path: Path) -> list[Json]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def write_sealed(path: Path, lines: list[Json]) -> Path:
    """The lines as a ledger whose chain verifies: seq 1..n and every hash computed again."""
    head, written = GENESIS_HASH, []
    for seq, line in enumerate(lines, 1):
        entry = LedgerEntry.model_validate({key: line[key] for key in LedgerEntry.model_fields if key in line})
        event = seal(entry, seq=seq, worker=line["worker"], prev_hash=head)
        written.append(encode_line(event))
        head = event.hash
    path.write_bytes(b"".join(written))
    return path


def line_of(lines: list[Json], kind: str, step: int | None = None) -> Json:
    return next(line for line in lines if line["type"] == kind and line["step"] == step)


# --- histories -----------------------------------------------------------------------------------


def load_history(path: Path) -> Json:
    return copy.deepcopy(json.loads(path.read_text()))


def write_history(path: Path, history: Json) -> Path:
    path.write_text(json.dumps(history))
    return path


def event(history: Json, event_id: int) -> Json:
    return next(each for each in history["events"] if int(each["eventId"]) == event_id)


def scheduled(history: Json, activity: str, step: int) -> Json:
    """The scheduling of `activity` for `step` (its summary names the step)."""
    for each in history["events"]:
        attributes = each.get("activityTaskScheduledEventAttributes")
        if attributes and attributes["activityType"]["name"] == activity and summary(each).startswith(f"step {step}:"):
            return each
    raise LookupError(f"no {activity} of step {step}")


def completion(history: Json, scheduled_event: Json) -> Json:
    return next(
        each
        for each in history["events"]
        if each.get("activityTaskCompletedEventAttributes", {}).get("scheduledEventId") == scheduled_event["eventId"]
    )


def result_payload(completed: Json) -> Json:
    """The payload an activity's completion returned."""
    payload: Json = completed["activityTaskCompletedEventAttributes"]["result"]["payloads"][0]
    return payload


def value(payload: Json) -> Any:
    return _decode(payload)


def marker(history: Json, activity: str, step: int) -> Json:
    """The local activity `activity` of `step`."""
    for each in history["events"]:
        attributes = each.get("markerRecordedEventAttributes")
        if not attributes or not summary(each).startswith(f"step {step}:"):
            continue
        if _decode(attributes["details"]["data"]["payloads"][0])["activity_type"] == activity:
            return each
    raise LookupError(f"no {activity} marker of step {step}")


def summary(each: Json) -> str:
    held = each.get("userMetadata", {}).get("summary")
    return _decode(held) if held else ""


def edit_payload(payload: Json, change: Callable[[Any], Any]) -> None:
    """Change the value a JSON payload holds (`change` returns the new value)."""
    payload["data"] = base64.b64encode(json.dumps(change(_decode(payload))).encode()).decode()


def renumbered(history: Json) -> Json:
    """Event ids 1..n in list order, every `...EventId` field following the event it names."""
    new_ids = {each["eventId"]: str(number) for number, each in enumerate(history["events"], 1)}
    for each in history["events"]:
        for node in _objects(each):
            for key, value in node.items():
                if key == "eventId" or (key.endswith("EventId") and isinstance(value, str) and value in new_ids):
                    node[key] = new_ids[value]
    return history


def _objects(node: Any) -> Iterator[Json]:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _objects(value)
    elif isinstance(node, list):
        for value in node:
            yield from _objects(value)


def _decode(payload: Json) -> Any:
    return json.loads(base64.b64decode(payload["data"]))
