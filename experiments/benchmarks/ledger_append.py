"""What one ledger append costs as the ledger grows: appending to a ledger this process has
appended to before (it checks only the lines added since), against the first append after a
restart (it checks the whole chain, as `ledger verify` does).

    uv run python -m experiments.benchmarks.ledger_append [--sizes 100 1000 2000 10000] [--runs 20] [--quick]

Each event is a step's tool result of about 400 bytes; every append is fsync'd.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from agent.ledger import LedgerStore, prefix
from contracts.ledger import LedgerEntry

QUICK_SIZES, QUICK_RUNS = (10, 200), 3


def _entry(run_id: str, index: int) -> LedgerEntry:
    return LedgerEntry(
        event_id=f"{run_id}:{index}",
        type="tool_result",
        run_id=run_id,
        time=datetime.now(UTC),
        step=index,
        payload={"tool": "run_command", "ok": True, "exit_code": 0, "output": "x" * 300},
    )


def _append_ms(ledgers: LedgerStore, run_id: str, index: int, *, restarted: bool) -> float:
    if restarted:
        prefix.forget(ledgers.path(run_id))  # what a new worker process knows of the file: nothing
    started = time.perf_counter()
    ledgers.append(run_id, [_entry(run_id, index)], "bench")
    return (time.perf_counter() - started) * 1000


def main(sizes: Sequence[int], runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-ledger-") as scratch:
        ledgers = LedgerStore(Path(scratch) / "ledgers")
        print(
            "| events in the ledger | append ms (median) | append p95 "
            "| first append after a restart ms (median) | first p95 |"
        )
        print("| ---: | ---: | ---: | ---: | ---: |")
        for size in sizes:
            run_id = f"bench-{size}"
            ledgers.append(run_id, [_entry(run_id, index) for index in range(size)], "bench")
            index = size
            warm, cold = [], []
            for _ in range(runs):
                warm.append(_append_ms(ledgers, run_id, index, restarted=False))
                cold.append(_append_ms(ledgers, run_id, index + 1, restarted=True))
                index += 2
            print(f"| {size:,} | {_median_p95(warm)} | {_median_p95(cold)} |")
        print(f"\n{runs} appends of each kind per size, alternated; each appends one event and fsyncs.")


def _median_p95(times: list[float]) -> str:
    p95 = statistics.quantiles(times, n=20)[-1] if len(times) > 1 else times[0]
    return f"{statistics.median(times):.2f} | {p95:.2f}"


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 1000, 2000, 10000], help="ledger sizes, events")
    parser.add_argument("--runs", type=int, default=20, help="appends of each kind per size")
    parser.add_argument(
        "--quick", action="store_true", help=f"a check that the benchmark runs: sizes {QUICK_SIZES}, {QUICK_RUNS} runs"
    )
    args = parser.parse_args()
    if args.quick:
        main(QUICK_SIZES, QUICK_RUNS)
    else:
        main(args.sizes, args.runs)
