"""The run ledger: the hash chain, idempotent and concurrent appends, torn tails, hand edits, the
activity boundary and the two CLI commands (called as functions: cli.py wires them later)."""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue, ValidationError
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

import agent.ledger as ledger
from activities.ledger import LedgerActivities
from agent.effects.keys import canonical_json
from agent.ledger import (
    GENESIS_HASH,
    encode_line,
    event_hash,
    read_events,
    seal,
    store,
    verify_ledger,
)
from contracts.envelopes import AppendLedgerInput
from contracts.errors import LedgerCorrupt, StarterError
from contracts.ledger import EventType, LedgerEntry, LedgerEvent
from settings import PROJECT_ROOT
from starter.ledger_command import ledger_verify, replay
from tests.lab_dependencies import lab_deps

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


@pytest.fixture
def run_id() -> str:
    return f"run-{uuid.uuid4().hex[:10]}"


def entry(run_id: str, index: int, type: EventType = "tool_result", **payload: JsonValue) -> LedgerEntry:
    return LedgerEntry(
        event_id=f"{run_id}:{index}:{type}",
        type=type,
        run_id=run_id,
        time=T0 + timedelta(seconds=index),
        step=index,
        payload=payload,
    )


def story(run_id: str) -> list[LedgerEntry]:
    """A short run, as its writers would record it."""
    return [
        entry(run_id, 0, "run_started", goal="rename foo to bar"),
        entry(run_id, 1, "proposal", proposal={"tool": "run_command", "arguments": {"command": "pytest -q"}}),
        entry(run_id, 2, "verdict", decision="allow", reason_code="allowed"),
        entry(run_id, 3, "tool_result", tool="run_command", ok=True, exit_code=0),
        entry(run_id, 4, "postconditions", passed=False),
    ]


def lines_of(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def write_lines(path: Path, lines: list[dict[str, Any]]) -> None:
    path.write_bytes(b"".join(canonical_json(line).encode() + b"\n" for line in lines))


# --- the chain ------------------------------------------------------------------------------------


def test_the_first_event_follows_the_genesis_hash_and_each_next_its_predecessor(run_id: str) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w1")
    events = read_events(lab_deps().ledgers.path(run_id))
    assert GENESIS_HASH == "0" * 64
    assert events[0].prev_hash == GENESIS_HASH
    assert [event.prev_hash for event in events[1:]] == [event.hash for event in events[:-1]]
    assert [event.seq for event in events] == [1, 2, 3, 4, 5]


def test_event_hash_is_sha256_of_the_canonical_json_of_every_other_field(run_id: str) -> None:
    event = seal(entry(run_id, 1, note="x"), seq=1, worker="w", prev_hash=GENESIS_HASH)
    fields = event.model_dump(mode="json")
    del fields["hash"]
    assert event.hash == hashlib.sha256(canonical_json(fields).encode()).hexdigest()
    assert event_hash({**fields, "hash": "anything"}) == event.hash
    assert set(fields) == set(LedgerEvent.model_fields) - {"hash"}


def _mutations() -> dict[str, Callable[[Any], Any]]:
    def later(stamp: str) -> str:
        return (datetime.fromisoformat(stamp) + timedelta(seconds=1)).isoformat()

    return {
        "event_id": lambda value: value + "x",
        "type": lambda value: "commit" if value != "commit" else "rollback",
        "run_id": lambda value: value + "x",
        "time": later,
        "step": lambda value: (value or 0) + 1,
        "payload": lambda value: {**value, "edited": True},
        "seq": lambda value: value + 1,
        "worker": lambda value: value + "x",
        "prev_hash": lambda value: "f" * 64 if value != "f" * 64 else "e" * 64,
        "hash": lambda value: "0" * 64,
    }


def test_a_change_to_any_single_field_of_any_line_is_reported_at_that_line(run_id: str, tmp_path: Path) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w1")
    original = lines_of(lab_deps().ledgers.path(run_id))
    mutations = _mutations()
    assert set(mutations) == set(LedgerEvent.model_fields), "a new field needs a mutation here"
    edited = tmp_path / "edited.jsonl"
    for index in range(len(original)):
        for name, mutate in mutations.items():
            lines = [dict(line) for line in original]
            lines[index][name] = mutate(lines[index][name])
            write_lines(edited, lines)
            report = verify_ledger(edited)
            assert not report.ok, (index, name)
            assert report.first_error is not None and report.first_error.line == index + 1, (name, report)
            assert report.events == index


def test_a_valid_ledger_reports_its_events_and_types(run_id: str) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w1")
    report = verify_ledger(lab_deps().ledgers.path(run_id))
    assert report.ok and report.first_error is None and report.torn_tail_bytes == 0
    assert (report.events, report.run_id) == (5, run_id)
    assert report.types == {"run_started": 1, "proposal": 1, "verdict": 1, "tool_result": 1, "postconditions": 1}


def test_a_chain_with_a_repeated_event_id_does_not_verify(tmp_path: Path, run_id: str) -> None:
    # Only a buggy or hostile writer can make one: append never writes an id twice.
    first = seal(entry(run_id, 1), seq=1, worker="w", prev_hash=GENESIS_HASH)
    second = seal(entry(run_id, 1), seq=2, worker="w", prev_hash=first.hash)
    path = tmp_path / "dup.jsonl"
    path.write_bytes(encode_line(first) + encode_line(second))
    report = verify_ledger(path)
    assert report.first_error is not None and report.first_error.line == 2
    assert "already at line 1" in report.first_error.reason


def test_a_ledger_holds_one_run(tmp_path: Path, run_id: str) -> None:
    first = seal(entry(run_id, 1), seq=1, worker="w", prev_hash=GENESIS_HASH)
    other = seal(entry("other-run", 2), seq=2, worker="w", prev_hash=first.hash)
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(encode_line(first) + encode_line(other))
    report = verify_ledger(path)
    assert report.first_error is not None and report.first_error.line == 2 and "run_id" in report.first_error.reason


# --- appends --------------------------------------------------------------------------------------


def test_appending_the_same_entries_again_adds_nothing(run_id: str) -> None:
    entries = story(run_id)
    first = lab_deps().ledgers.append(run_id, entries, "w1")
    again = lab_deps().ledgers.append(run_id, entries, "w2")
    assert (first.appended, first.skipped) == (5, 0)
    assert (again.appended, again.skipped) == (0, 5)
    assert (again.last_seq, again.last_hash) == (first.last_seq, first.last_hash)
    overlap = lab_deps().ledgers.append(
        run_id, [entries[-1], entry(run_id, 5, "run_finished"), entry(run_id, 5, "run_finished")], "w3"
    )
    assert (overlap.appended, overlap.skipped, overlap.last_seq) == (1, 2, 6)
    report = verify_ledger(lab_deps().ledgers.path(run_id))
    assert report.ok and report.events == 6
    assert [event.worker for event in read_events(lab_deps().ledgers.path(run_id))] == ["w1"] * 5 + ["w3"]


def test_append_writes_with_fsync_after_the_data(run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = lab_deps().ledgers.path(run_id)
    calls: list[int] = []
    real_fsync = os.fsync

    def counting_fsync(fd: int) -> None:
        calls.append(os.fstat(fd).st_size)
        real_fsync(fd)

    lab_deps().ledgers.append(run_id, story(run_id)[:2], "w")
    monkeypatch.setattr(os, "fsync", counting_fsync)
    lab_deps().ledgers.append(run_id, story(run_id)[2:], "w")
    assert calls == [path.stat().st_size], "one fsync, once every new byte is written"
    calls.clear()
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    assert calls == [], "nothing to write, nothing to sync"


def test_entries_of_another_run_or_not_strict_json_are_refused_before_writing(run_id: str) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    before = lab_deps().ledgers.path(run_id).read_bytes()
    with pytest.raises(ValueError, match="other-run"):
        lab_deps().ledgers.append(run_id, [entry("other-run", 9)], "w")
    with pytest.raises(ValueError):
        lab_deps().ledgers.append(run_id, [entry(run_id, 9, ratio=float("nan"))], "w")
    assert lab_deps().ledgers.path(run_id).read_bytes() == before


@pytest.mark.parametrize("bad", ["", ".", "..", "a/b", "../etc", "a\\b", "a\0b"])
def test_ledger_path_refuses_run_ids_that_are_not_one_file_name(bad: str) -> None:
    with pytest.raises(ValueError, match="cannot name a ledger file"):
        lab_deps().ledgers.path(bad)


def test_ledger_path_is_under_the_data_directory(data_dir: Path) -> None:
    assert lab_deps().ledgers.path("durable-x-1") == data_dir / "ledgers" / "durable-x-1.jsonl"


def test_threads_appending_to_one_run_keep_one_chain(run_id: str) -> None:
    shared = [entry(run_id, index) for index in range(20)]

    def writer(number: int) -> None:
        own = [entry(run_id, 1000 * (number + 1) + index) for index in range(15)]
        mine = shared[number:] + own + shared[:number]  # every thread also retries the shared entries
        for start in range(0, len(mine), 4):
            lab_deps().ledgers.append(run_id, mine[start : start + 4], f"thread-{number}")

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(writer, range(8)))
    report = verify_ledger(lab_deps().ledgers.path(run_id))
    assert report.ok and report.events == 20 + 8 * 15
    assert len({event.event_id for event in read_events(lab_deps().ledgers.path(run_id))}) == report.events


WRITER_SCRIPT = """
import sys
from datetime import UTC, datetime
from contracts.ledger import LedgerEntry
from tests.lab_dependencies import lab_deps

run_id, worker = sys.argv[1], sys.argv[2]
ids = [f"shared-{i}" for i in range(40)] + [f"{worker}-{i}" for i in range(40)]
if worker.endswith("b"):
    ids.reverse()
for start in range(0, len(ids), 2):
    batch = [
        LedgerEntry(event_id=event_id, type="proposal", run_id=run_id, time=datetime.now(UTC))
        for event_id in ids[start : start + 2]
    ]
    lab_deps().ledgers.append(run_id, batch, worker)
"""


def test_two_processes_appending_to_one_run_keep_one_chain(run_id: str) -> None:
    writers = [
        subprocess.Popen([sys.executable, "-c", WRITER_SCRIPT, run_id, f"proc-{name}"], cwd=PROJECT_ROOT)
        for name in ("a", "b")
    ]
    assert [process.wait(timeout=60) for process in writers] == [0, 0]
    report = verify_ledger(lab_deps().ledgers.path(run_id))
    assert report.ok and report.events == 40 + 2 * 40
    events = read_events(lab_deps().ledgers.path(run_id))
    assert len({event.event_id for event in events}) == len(events)
    assert {event.worker for event in events} == {"proc-a", "proc-b"}


def test_an_append_checks_only_what_was_added_since_this_process_last_appended(
    run_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    full_scans: list[int] = []
    whole = store.scan_chain
    monkeypatch.setattr(store, "scan_chain", lambda data, *args: full_scans.append(len(data)) or whole(data, *args))
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    lab_deps().ledgers.append(run_id, [entry(run_id, 10)], "w")
    # Another process appends between two of this one's appends: its lines are read and checked.
    other = subprocess.run([sys.executable, "-c", WRITER_SCRIPT, run_id, "proc-a"], cwd=PROJECT_ROOT, timeout=60)
    assert other.returncode == 0
    result = lab_deps().ledgers.append(run_id, [entry(run_id, 11)], "w")
    assert len(full_scans) == 1  # the first append only: the file was empty then
    report = verify_ledger(lab_deps().ledgers.path(run_id))
    assert report.ok and report.events == result.last_seq == 5 + 1 + 80 + 1


def test_a_line_another_writer_added_is_checked_before_anything_goes_after_it(run_id: str) -> None:
    path = lab_deps().ledgers.path(run_id)
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    with path.open("ab") as raw:
        raw.write(b'{"seq": 6}\n')
    with pytest.raises(LedgerCorrupt, match="line 6: not a ledger event"):
        lab_deps().ledgers.append(run_id, [entry(run_id, 10)], "w")


def test_an_edit_above_the_head_while_another_appended_is_caught_by_verify_and_after_a_restart(run_id: str) -> None:
    """What an append of this process does not re-read: the lines it verified before, when the
    file grew since. `ledger verify` reads them all, and so does a restarted worker's append."""
    path = lab_deps().ledgers.path(run_id)
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    edited = _edited_hash(path.read_bytes().splitlines())  # the same length: nothing moves
    path.write_bytes(b"".join(line + b"\n" for line in edited))
    with path.open("ab") as raw:  # and a line appended after it, by a writer that did not check
        raw.write(encode_line(seal(entry(run_id, 10), seq=6, worker="x", prev_hash=json.loads(edited[-1])["hash"])))
    report = verify_ledger(path)
    assert not report.ok and report.first_error is not None and report.first_error.line == 3
    restarted = subprocess.run(
        [sys.executable, "-c", WRITER_SCRIPT, run_id, "proc-a"], cwd=PROJECT_ROOT, timeout=60, capture_output=True
    )
    assert restarted.returncode != 0 and b"line 3: hash does not match" in restarted.stderr


def test_append_to_a_two_thousand_event_ledger_stays_fast(run_id: str) -> None:
    payload: dict[str, JsonValue] = {"tool": "run_command", "ok": True, "exit_code": 0, "output": "x" * 200}
    lab_deps().ledgers.append(run_id, [entry(run_id, index, **payload) for index in range(2000)], "w")
    started = time.perf_counter()
    result = lab_deps().ledgers.append(run_id, [entry(run_id, 2000, **payload)], "w")
    elapsed = time.perf_counter() - started
    assert result.last_seq == 2001
    # About 25 ms on the machine this was written on; the bound only catches a change of order.
    assert elapsed < 2.0


# --- torn tails -----------------------------------------------------------------------------------


def test_a_torn_tail_is_reported_then_quarantined_and_recorded(run_id: str) -> None:
    path = lab_deps().ledgers.path(run_id)
    lab_deps().ledgers.append(run_id, story(run_id)[:3], "w1")
    torn = encode_line(seal(story(run_id)[3], seq=4, worker="w1", prev_hash="0" * 64))[:57]
    with path.open("ab") as file:
        file.write(torn)

    before = verify_ledger(path)
    assert before.ok and before.events == 3 and before.torn_tail_bytes == len(torn)

    result = lab_deps().ledgers.append(run_id, story(run_id)[3:], "w2")
    assert (result.appended, result.skipped, result.repaired) == (2, 0, f"{run_id}.jsonl.torn-1")
    assert path.with_name(f"{run_id}.jsonl.torn-1").read_bytes() == torn
    events = read_events(path)
    assert [event.type for event in events][3:] == ["ledger_repaired", "tool_result", "postconditions"]
    assert events[3].payload == {
        "quarantine": f"{run_id}.jsonl.torn-1",
        "bytes": len(torn),
        "sha256": hashlib.sha256(torn).hexdigest(),
        "offset": len(b"".join(encode_line(event) for event in events[:3])),
    }
    after = verify_ledger(path)
    assert after.ok and after.events == 6 and after.torn_tail_bytes == 0 and after.types["ledger_repaired"] == 1


def test_each_torn_tail_gets_its_own_quarantine_file_even_when_nothing_else_is_appended(run_id: str) -> None:
    path = lab_deps().ledgers.path(run_id)
    garbage = [b"x" * 5000, b'{"seq": 9']  # longer, then shorter, than the repair event
    for number, tail in enumerate(garbage, 1):
        with path.open("ab") as file:
            file.write(tail)
        result = lab_deps().ledgers.append(run_id, [], "w")
        assert (result.appended, result.repaired) == (0, f"{run_id}.jsonl.torn-{number}")
        assert path.with_name(f"{run_id}.jsonl.torn-{number}").read_bytes() == tail
    report = verify_ledger(path)
    assert report.ok and report.types == {"ledger_repaired": 2} and report.torn_tail_bytes == 0


def test_a_repair_cut_short_by_a_crash_loses_nothing(run_id: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = lab_deps().ledgers.path(run_id)
    lab_deps().ledgers.append(run_id, story(run_id)[:2], "w")
    with path.open("ab") as file:
        file.write(b"y" * 4000)

    def crash(fd: int, length: int) -> None:
        raise OSError("killed between the overwrite and the cut")

    monkeypatch.setattr(os, "ftruncate", crash)
    with pytest.raises(OSError, match="killed"):
        lab_deps().ledgers.append(run_id, story(run_id)[2:3], "w")
    monkeypatch.undo()
    # The repair event and the entry are on disk; what is left of the torn bytes is a torn tail again.
    assert verify_ledger(path).torn_tail_bytes > 0
    result = lab_deps().ledgers.append(run_id, story(run_id)[2:], "w")
    assert (result.appended, result.skipped, result.repaired) == (2, 1, f"{run_id}.jsonl.torn-2")
    report = verify_ledger(path)
    assert report.ok and report.types["ledger_repaired"] == 2 and report.torn_tail_bytes == 0
    assert path.with_name(f"{run_id}.jsonl.torn-1").read_bytes() == b"y" * 4000


# --- hand edits -----------------------------------------------------------------------------------


def _changed_payload(lines: list[bytes]) -> list[bytes]:
    return [*lines[:2], lines[2].replace(b'"decision":"allow"', b'"decision":"reject"'), *lines[3:]]


def _edited_hash(lines: list[bytes]) -> list[bytes]:
    fields = json.loads(lines[2])
    fields["hash"] = "a" * 64
    return [*lines[:2], canonical_json(fields).encode(), *lines[3:]]


HAND_EDITS: dict[str, tuple[Callable[[list[bytes]], list[bytes]], int, str]] = {
    "changed payload": (_changed_payload, 3, "hash does not match"),
    "deleted line": (lambda lines: lines[:2] + lines[3:], 3, "seq 4 where 3 was expected"),
    "swapped lines": (lambda lines: [lines[0], lines[2], lines[1], *lines[3:]], 2, "seq 3 where 2 was expected"),
    "duplicated line": (lambda lines: [*lines[:3], lines[2], *lines[3:]], 4, "seq 3 where 4 was expected"),
    "edited hash": (_edited_hash, 3, "hash does not match"),
    "garbage line": (lambda lines: [lines[0], b"#oops", *lines[1:]], 2, "not JSON"),
    "not an event": (lambda lines: [lines[0], b'{"seq": 2}', *lines[1:]], 2, "not a ledger event"),
}


@pytest.mark.parametrize("edit", HAND_EDITS)
def test_a_hand_edit_is_reported_at_its_line_and_append_refuses_it(edit: str, run_id: str) -> None:
    change, line, reason = HAND_EDITS[edit]
    path = lab_deps().ledgers.path(run_id)
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    path.write_bytes(b"".join(line + b"\n" for line in change(path.read_bytes().splitlines())))
    edited = path.read_bytes()

    report = verify_ledger(path)
    assert not report.ok and report.first_error is not None
    assert (report.first_error.line, report.events) == (line, line - 1)
    assert reason in report.first_error.reason

    with pytest.raises(LedgerCorrupt, match=f"line {line}: "):
        lab_deps().ledgers.append(run_id, [entry(run_id, 99, "run_finished")], "w")
    assert path.read_bytes() == edited
    assert not list(path.parent.glob(f"{path.name}.torn-*"))


def test_a_corrupt_ledger_with_a_torn_tail_is_left_alone(run_id: str) -> None:
    path = lab_deps().ledgers.path(run_id)
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    broken = _changed_payload(path.read_bytes().splitlines())
    path.write_bytes(b"".join(line + b"\n" for line in broken) + b'{"torn')
    edited = path.read_bytes()
    with pytest.raises(LedgerCorrupt, match="line 3: "):
        lab_deps().ledgers.append(run_id, [], "w")
    assert path.read_bytes() == edited
    assert not list(path.parent.glob(f"{path.name}.torn-*"))


def test_a_ledger_file_of_another_run_is_refused(run_id: str) -> None:
    lab_deps().ledgers.append("other-" + run_id, story("other-" + run_id), "w")
    lab_deps().ledgers.path(run_id).write_bytes(lab_deps().ledgers.path("other-" + run_id).read_bytes())
    with pytest.raises(LedgerCorrupt, match="line 1: run_id"):
        lab_deps().ledgers.append(run_id, story(run_id), "w")


# --- the activity ---------------------------------------------------------------------------------


async def test_the_activity_appends_in_the_name_of_its_worker(run_id: str) -> None:
    result = await ActivityEnvironment().run(
        LedgerActivities(lab_deps()).append_ledger, AppendLedgerInput(run_id=run_id, entries=story(run_id))
    )
    assert (result.appended, result.last_seq) == (5, 5)
    workers = {event.worker for event in read_events(lab_deps().ledgers.path(run_id))}
    assert workers == {f"{socket.gethostname()}:{os.getpid()}"}


async def test_the_activity_turns_a_corrupt_ledger_into_a_non_retryable_error(run_id: str) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    path = lab_deps().ledgers.path(run_id)
    path.write_bytes(b"".join(line + b"\n" for line in _changed_payload(path.read_bytes().splitlines())))
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            LedgerActivities(lab_deps()).append_ledger, AppendLedgerInput(run_id=run_id, entries=story(run_id))
        )
    assert raised.value.type == "LedgerCorrupt"
    assert raised.value.non_retryable
    assert "line 3" in raised.value.message


def test_the_activity_input_holds_entries_of_its_own_run_only(run_id: str) -> None:
    with pytest.raises(ValidationError, match="other-run"):
        AppendLedgerInput(run_id=run_id, entries=[entry("other-run", 1)])
    with pytest.raises(ValidationError, match="cannot name a ledger file"):
        AppendLedgerInput(run_id="../x", entries=[])


# --- the CLI commands -----------------------------------------------------------------------------


def test_ledger_verify_says_what_it_verified_and_exits_zero(run_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    path = lab_deps().ledgers.path(run_id)
    for run in (run_id, str(path)):
        assert ledger_verify(run) == 0
        out = capsys.readouterr().out
        assert out == f"ledger of {run_id}: 5 events, hash chain intact ({path})\n"
    counted = {"run_started": 1, "proposal": 1, "verdict": 1, "tool_result": 1, "postconditions": 1}
    assert verify_ledger(path).types == counted


def test_ledger_verify_names_the_breaking_line_and_exits_one(run_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    path = lab_deps().ledgers.path(run_id)
    path.write_bytes(b"".join(line + b"\n" for line in _changed_payload(path.read_bytes().splitlines())))
    assert ledger_verify(run_id) == 1
    out = capsys.readouterr().out
    assert out == (
        f"ledger of {run_id}: hash chain BROKEN at line 3: hash does not match the event's content; "
        f"the 2 events before it verify ({path})\n"
    )
    assert out.count("\n") == 1


def test_ledger_verify_mentions_a_torn_tail(run_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    with lab_deps().ledgers.path(run_id).open("ab") as file:
        file.write(b'{"seq":6,')
    assert ledger_verify(run_id) == 0
    assert "torn tail of 9 bytes" in capsys.readouterr().out


def test_a_missing_ledger_is_a_one_line_starter_error(tmp_path: Path) -> None:
    with pytest.raises(StarterError, match="no ledger at"):
        ledger_verify("never-ran")
    with pytest.raises(StarterError, match="no ledger at"):
        replay(str(tmp_path / "missing.jsonl"))


def test_replay_prints_an_aligned_trace_with_workers(run_id: str, capsys: pytest.CaptureFixture[str]) -> None:
    entries = story(run_id)
    lab_deps().ledgers.append(run_id, entries[:3], "host-a:101")
    lab_deps().ledgers.append(run_id, entries[3:], "host-b:202")
    assert replay(run_id) == 0
    header, *rows, last = capsys.readouterr().out.splitlines()
    assert header.split() == ["SEQ", "TIME", "TYPE", "STEP", "TOOL", "OUTCOME", "WORKER"]
    assert len(rows) == 5 and last.startswith(f"ledger of {run_id}: 5 events, hash chain intact (")
    worker_column = header.index("WORKER")
    assert [row[worker_column:] for row in rows] == ["host-a:101"] * 3 + ["host-b:202"] * 2
    # The proposal's tool with its arguments, as `run` shows a step; no outcome.
    assert "run_command(command='pytest -q')" in rows[1] and "-" in rows[1].split()
    assert "decision=allow" in rows[2]
    assert "run_command" in rows[3] and "ok=true exit_code=0" in rows[3]
    assert "passed=false" in rows[4]
    assert rows[0].split()[:4] == ["1", "2026-01-02T03:04:05+00:00", "run_started", "0"]


def test_replay_of_a_broken_ledger_shows_what_it_can_then_where_it_breaks(
    run_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    path = lab_deps().ledgers.path(run_id)
    lines = path.read_bytes().splitlines()
    path.write_bytes(b"".join(line + b"\n" for line in [lines[0], b"#oops", *lines[1:]]))
    assert replay(run_id) == 1
    _header, *rows, last = capsys.readouterr().out.splitlines()
    assert [row.split()[0] for row in rows] == ["1", "2", "3", "4", "5"]
    assert last.startswith(f"ledger of {run_id}: hash chain BROKEN at line 2: not JSON")


def test_read_events_skips_what_does_not_parse(run_id: str) -> None:
    lab_deps().ledgers.append(run_id, story(run_id), "w")
    path = lab_deps().ledgers.path(run_id)
    with path.open("ab") as file:
        file.write(b'not an event\n{"torn')
    assert [event.seq for event in read_events(path)] == [1, 2, 3, 4, 5]


def test_the_package_exports_what_it_declares() -> None:
    assert sorted(ledger.__all__) == sorted(set(ledger.__all__))
    for name in ledger.__all__:
        assert hasattr(ledger, name), name
