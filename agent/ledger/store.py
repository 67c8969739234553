"""Appending to a run's ledger, `DATA/ledgers/RUN_ID.jsonl`, one JSON event per line.

Blocking file I/O: async callers run `append` in a thread. Several workers may append to the
same run, so an append holds an exclusive `flock` on the file from the read of the chain to the
fsync of its new lines. It reads the whole chain the first time a process appends to a ledger,
and afterwards only the lines added since (`agent/ledger/prefix.py`): an append costs the same
at the 2,000th event as at the 10th. Lines only ever go on the end of the file; the one exception is a torn
tail, which is moved to a quarantine file and replaced by a `ledger_repaired` event.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from agent.ledger import prefix
from agent.ledger.chain import encode_line, seal
from agent.ledger.files import fsync_dir, read_all, read_from, replace_tail, write_all, write_new_file
from agent.ledger.scan import ChainScan, scan_chain, scan_more
from contracts.envelopes import AppendLedgerResult
from contracts.errors import LedgerCorrupt
from contracts.ledger import LedgerEntry, LedgerEvent, check_run_id


def worker_name() -> str:
    """Host and process: which of several workers wrote a line."""
    return f"{socket.gethostname()}:{os.getpid()}"


@dataclass(frozen=True)
class LedgerStore:
    """The ledgers of every run, one file each (agent.dependencies.Dependencies.ledgers)."""

    directory: Path

    def path(self, run_id: str) -> Path:
        check_run_id(run_id)
        return self.directory / f"{run_id}.jsonl"

    def append(self, run_id: str, entries: list[LedgerEntry], worker: str) -> AppendLedgerResult:
        """Appends the entries whose event id the ledger does not hold yet, in order, and fsyncs.

        Raises LedgerCorrupt (file unchanged) when the chain already on disk does not verify, and
        ValueError for entries of another run or with a payload that is not strict JSON."""
        strays = sorted({entry.run_id for entry in entries} - {run_id})
        if strays:
            raise ValueError(f"entries of run(s) {strays} cannot go in the ledger of run {run_id!r}")
        return _append(self.path(run_id), run_id, entries, worker)


def _append(path: Path, run_id: str, entries: list[LedgerEntry], worker: str) -> AppendLedgerResult:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        # flock locks the open file description, so threads of one process exclude each other
        # as well as processes do. Closing the file releases it, whatever happens in between.
        fcntl.flock(fd, fcntl.LOCK_EX)
        return _append_locked(fd, path, run_id, entries, worker)
    finally:
        os.close(fd)


def _append_locked(fd: int, path: Path, run_id: str, entries: list[LedgerEntry], worker: str) -> AppendLedgerResult:
    # The whole file the first time this process appends to it; afterwards only what was added
    # since (agent/ledger/prefix.py says what that still checks).
    verified = prefix.recall(path, fd)
    if verified is None:
        scan = scan_chain(read_all(fd), run_id)
    else:
        scan = scan_more(verified.scan, read_from(fd, verified.size))
    if scan.problem is not None:
        prefix.forget(path)
        raise LedgerCorrupt(f"{path}: line {scan.problem.line}: {scan.problem.reason}; nothing appended")
    batch: set[str] = set()
    fresh: list[LedgerEntry] = []
    for entry in entries:
        if entry.event_id not in scan.event_lines and entry.event_id not in batch:
            batch.add(entry.event_id)
            fresh.append(entry)
    quarantine = _quarantine_path(path) if scan.torn_tail else None
    pending = ([_repair_entry(run_id, quarantine, scan)] if quarantine else []) + fresh

    # Every line is sealed and encoded before anything touches the disk: a bad payload fails here.
    events: list[LedgerEvent] = []
    lines: list[bytes] = []
    seq, head = scan.last_seq, scan.last_hash
    for entry in pending:
        event = seal(entry, seq=seq + 1, worker=worker, prev_hash=head)
        events.append(event)
        lines.append(encode_line(event))
        seq, head = event.seq, event.hash
    new = b"".join(lines)

    if quarantine is not None:
        prefix.forget(path)
        write_new_file(quarantine, scan.torn_tail)
        replace_tail(path, scan.complete_bytes, scan.complete_bytes + len(scan.torn_tail), new)
    else:
        if new:
            write_all(fd, new)
            os.fsync(fd)
            if scan.complete_bytes == 0:
                fsync_dir(path.parent)  # a new file's directory entry must be durable too
        prefix.remember(path, fd, _with(scan, events, len(new)))
    return AppendLedgerResult(
        appended=len(fresh),
        skipped=len(entries) - len(fresh),
        last_seq=seq,
        last_hash=head,
        repaired=quarantine.name if quarantine else None,
    )


def _with(scan: ChainScan, events: list[LedgerEvent], size: int) -> ChainScan:
    """The scan with the lines just written: what the file now holds, verified."""
    for event in events:
        scan.last_seq, scan.last_hash = event.seq, event.hash
        scan.event_lines[event.event_id] = event.seq
        scan.types[event.type] += 1
    scan.complete_bytes += size
    return scan


def _repair_entry(run_id: str, quarantine: Path, scan: ChainScan) -> LedgerEntry:
    digest = hashlib.sha256(scan.torn_tail).hexdigest()
    return LedgerEntry(
        event_id=f"ledger_repaired:{scan.last_seq + 1}:{digest[:16]}",
        type="ledger_repaired",
        run_id=run_id,
        time=datetime.now(UTC),
        payload={
            "quarantine": quarantine.name,
            "bytes": len(scan.torn_tail),
            "sha256": digest,
            "offset": scan.complete_bytes,
        },
    )


def _quarantine_path(path: Path) -> Path:
    number = 1
    while (candidate := path.with_name(f"{path.name}.torn-{number}")).exists():
        number += 1
    return candidate
