"""The run ledger: an append-only, hash-chained, fsync'd JSONL file per run, idempotent on event id.

chain     the hash of an event and the genesis prev_hash (pure)
scan      one pass over a file's bytes checking every chain rule
store     `append` under an exclusive flock, torn tails quarantined; `ledger_path`
files     durable whole reads and writes
verify    `verify_ledger` -> LedgerReport
read      `read_events` for replays
activity  the `append_ledger` activity
"""

from activities.ledger.activity import AppendLedgerInput, append_ledger, worker_name
from activities.ledger.chain import GENESIS_HASH, encode_line, event_hash, seal
from activities.ledger.read import read_events
from activities.ledger.scan import LedgerProblem
from activities.ledger.store import AppendResult, append, check_run_id, ledger_path
from activities.ledger.verify import LedgerReport, verify_ledger

__all__ = [
    "GENESIS_HASH",
    "AppendLedgerInput",
    "AppendResult",
    "LedgerProblem",
    "LedgerReport",
    "append",
    "append_ledger",
    "check_run_id",
    "encode_line",
    "event_hash",
    "ledger_path",
    "read_events",
    "seal",
    "verify_ledger",
    "worker_name",
]
