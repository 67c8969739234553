"""A soak: durable runs of every task, workers SIGKILLed at random moments and the Temporal
server restarted at random, until the kills and restarts asked for are done. Then every run
must have completed and passed its task's checks, every ledger must verify and hold every step
its run took, and the operations service must hold each effect once.

    uv run python -m experiments.soak [--kills 500] [--restarts 20] [--concurrency 4] [--workers 2] [--seed 0]

Two worker processes poll (`--workers`); one killed is replaced at once (a supervisor's job).
Kills come at random gaps, not at named points, so they land in model calls, tools, checks,
workflow tasks and between them; a kill waits until two workers poll, so each is a failover to
a live worker (what recovery times), not a wait for a new process to start. With two workers
a kill also waits for the last one's replacement (3-8 s of imports on a loaded machine); a
third keeps kills coming at the gaps asked for. Operations tasks are approved as
they ask. The figures are printed and kept as JSON (`--out`, by default
`DATA/soak/soak-TIMESTAMP.json`); the exit code is 1 when any check fails.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from google.protobuf.json_format import MessageToJson
from temporalio.api.history.v1 import History, HistoryEvent

from experiments.harness import LabCluster
from experiments.harness.pool import WorkerPool
from experiments.soak.chaos import Soak
from experiments.soak.judge import judge
from experiments.soak.recovery import kill_recoveries, restart_recoveries
from experiments.soak.report import SoakReport, Spread, by_attempt, print_report
from lab.runs.catalog import list_tasks
from settings import data_dir


async def soak(
    kills: int,
    restarts: int,
    concurrency: int,
    seed: int,
    gap_s: tuple[float, float],
    *,
    workers: int = 2,
    keep: bool = False,
) -> SoakReport:
    started_at, started = datetime.now(UTC), time.monotonic()
    tasks = [task for task in list_tasks() if task.script is not None]
    # Kept when a check fails: the runs' workspaces, ledgers and the cluster's logs are the evidence.
    scratch = tempfile.mkdtemp(prefix="soak-")
    try:
        # The runs' state goes to the scratch directory: the workers are told so at spawn.
        async with (
            LabCluster(Path(scratch) / "cluster", data_dir=Path(scratch)) as cluster,
            WorkerPool(cluster, workers),
        ):
            run = Soak(cluster, tasks, random.Random(seed))
            await asyncio.gather(run.chaos(kills, restarts, gap_s), *(run.keep_running() for _ in range(concurrency)))
            histories = await run.histories()
            judged = await judge(run, cluster.dependencies)
            recovered = kill_recoveries(run.kills, histories)
            if keep or judged.problems:
                save_histories(histories, Path(scratch) / "histories")
    except BaseException:
        print(f"the soak stopped; what it made so far is in {scratch}", file=sys.stderr)
        raise
    report = SoakReport(
        **judged.model_dump(),
        started_at=started_at,
        wall_s=time.monotonic() - started,
        seed=seed,
        kills=len(run.kills),
        restarts=len(run.restarts),
        runs=len(run.finished) + len(run.unfinished),
        tasks=dict(Counter(task.spec.id for task, _, _ in run.finished)),
        recovery=Spread.of([r.wait_s for r in recovered.timed]),
        recovery_by_attempt=by_attempt(recovered.timed),
        recovered=recovered.timed,
        retried_again=recovered.retried_again,
        kill_log=run.kills,
        restart_recovery=Spread.of(restart_recoveries(run.restarts, histories)),
    )
    if report.passed and not keep:
        shutil.rmtree(scratch, ignore_errors=True)
    else:
        report.kept = scratch
    return report


def save_histories(histories: dict[str, list[HistoryEvent]], directory: Path) -> None:
    """Each run's events as JSON, one file per generation, for a person to look into."""
    directory.mkdir(parents=True, exist_ok=True)
    for name, events in histories.items():
        history = History(events=events)
        (directory / f"{name.replace('/', '__')}.json").write_text(MessageToJson(history))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--kills", type=_count, default=500, help="worker SIGKILLs, at random moments")
    parser.add_argument("--restarts", type=_count, default=20, help="Temporal server restarts, at random moments")
    parser.add_argument("--concurrency", type=_positive, default=4, help="runs in flight at once")
    parser.add_argument(
        "--workers",
        type=_at_least_two,
        default=2,
        help="worker processes; a kill waits until two poll, so a third keeps kills coming while one restarts",
    )
    parser.add_argument("--seed", type=int, default=0, help="for the order and gaps of the kills and restarts")
    parser.add_argument(
        "--gap", type=float, nargs=2, default=(1.0, 3.0), metavar=("MIN", "MAX"), help="seconds between them"
    )
    parser.add_argument("--keep", action="store_true", help="keep the runs' data and histories even if it passes")
    parser.add_argument("--out", type=Path, help="the figures as JSON (default: DATA/soak/soak-TIMESTAMP.json)")
    args = parser.parse_args(argv)
    if not 0 <= args.gap[0] <= args.gap[1]:
        parser.error(f"--gap wants 0 <= MIN <= MAX, got {args.gap[0]} {args.gap[1]}")
    out = args.out or data_dir() / "soak" / f"soak-{datetime.now(UTC):%Y%m%d-%H%M%S}.json"
    gap = (args.gap[0], args.gap[1])
    report = asyncio.run(
        soak(args.kills, args.restarts, args.concurrency, args.seed, gap, workers=args.workers, keep=args.keep)
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.model_dump_json(indent=2))
    print_report(report, out)
    return 0 if report.passed else 1


def _count(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"a count of 0 or more, not {value}")
    return value


def _at_least_two(text: str) -> int:
    value = int(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"2 or more (a kill is a failover to another worker), not {value}")
    return value


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"1 or more, not {value}")
    return value


if __name__ == "__main__":
    sys.exit(main())
