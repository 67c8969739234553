"""The run ledger: an append-only, hash-chained, fsync'd JSONL file per run, idempotent on event id.

chain     the hash of an event and the genesis prev_hash (pure)
scan      one pass over a file's bytes checking every chain rule, or over the bytes after a
          verified prefix
prefix    what this process has verified of each ledger: appends check only what is new
store     `LedgerStore`: `append` under an exclusive flock, torn tails quarantined; `path`
files     durable whole reads and writes
verify    `verify_ledger` -> LedgerReport
read      `read_events` for replays
"""

from agent.ledger.chain import GENESIS_HASH, encode_line, event_hash, seal
from agent.ledger.read import read_events
from agent.ledger.scan import LedgerProblem
from agent.ledger.store import LedgerStore, check_run_id, worker_name
from agent.ledger.verify import LedgerReport, verify_ledger
from contracts.envelopes import AppendLedgerResult

__all__ = [
    "GENESIS_HASH",
    "AppendLedgerResult",
    "LedgerProblem",
    "LedgerReport",
    "LedgerStore",
    "check_run_id",
    "encode_line",
    "event_hash",
    "read_events",
    "seal",
    "verify_ledger",
    "worker_name",
]
