"""How many agent steps per second the durable runtime sustains: N concurrent scripted runs
against one dev server and two worker processes (the lab's cluster, real processes).

    uv run python -m experiments.benchmarks.capacity [--runs 1 8 32] [--steps 10] [--quick]

Each run is the synthetic reading task of `history_size` (each step reads a window of a long
file; the last writes `done.txt`), so a step costs orchestration and little else: what this
measures is the runtime, not a test suite. Steps per second are all runs' steps over the wall
time from the first start to the last result; a step's latency is the time from one proposal's
scheduling to the next in the same run (the last step's: to the run's completion).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from experiments.benchmarks.history_size import write_task
from experiments.harness import LabCluster
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from workflows.outcome import run_result

QUICK_RUNS, QUICK_STEPS = (1, 4), 3
WORKERS = 2


@dataclass
class Load:
    runs: int
    steps: int
    wall_s: float
    step_latencies_s: list[float]

    @property
    def steps_per_s(self) -> float:
        return self.steps / self.wall_s


# The activities that ask for a step's proposal: runs started before fused steps, and since.
PROPOSING = {"propose_action", "record_then_propose"}


async def one_run(client: Client, task_dir: Path) -> tuple[int, list[float]]:
    """The run's steps and each step's latency."""
    request = build_request(load_task(str(task_dir)), "durable")
    handle = await start_durable_run(client, request)
    result = await run_result(handle)
    if not result.succeeded:
        raise SystemExit(f"{request.run_id} ended {result.outcome.value}: {result.reason}")
    marks: list[float] = []
    async for event in handle.fetch_history_events():
        is_proposal = (
            event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
            and event.activity_task_scheduled_event_attributes.activity_type.name in PROPOSING
        )
        if is_proposal or event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
            marks.append(event.event_time.ToDatetime().timestamp())
    return len(result.steps), [later - earlier for earlier, later in pairwise(marks)]


async def load(client: Client, task_dir: Path, runs: int) -> Load:
    started = time.perf_counter()
    done = await asyncio.gather(*(one_run(client, task_dir) for _ in range(runs)))
    wall = time.perf_counter() - started
    latencies = [latency for _, per_step in done for latency in per_step]
    return Load(runs, sum(steps for steps, _ in done), wall, latencies)


async def main(loads: Sequence[int], steps: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-capacity-") as scratch:
        task_dir = write_task(Path(scratch) / "task", steps)
        # Its workers keep their runs' state in the scratch directory (told so at spawn).
        async with LabCluster(Path(scratch) / "cluster", ops=False, data_dir=Path(scratch)) as cluster:
            for _ in range(WORKERS):
                await cluster.start_worker()
            assert cluster.client is not None
            await load(cluster.client, task_dir, 1)  # warm-up: imports, caches, the first workflow
            measured = [await load(cluster.client, task_dir, runs) for runs in loads]
    print(f"{WORKERS} worker processes, one dev server; runs of {steps} steps (synthetic reading task)\n")
    print("| concurrent runs | steps | wall s | agent steps/s | step latency ms (median) | step p95 |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for m in measured:
        latencies = sorted(m.step_latencies_s)
        p95 = statistics.quantiles(latencies, n=20, method="inclusive")[-1] if len(latencies) > 1 else latencies[0]
        print(
            f"| {m.runs} | {m.steps} | {m.wall_s:.2f} | {m.steps_per_s:.1f} "
            f"| {statistics.median(latencies) * 1000:.0f} | {p95 * 1000:.0f} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, nargs="+", default=[1, 8, 32], help="concurrent runs, one load each")
    parser.add_argument("--steps", type=int, default=10, help="steps in each run")
    parser.add_argument(
        "--quick", action="store_true", help=f"a check that it runs: loads of {QUICK_RUNS} runs of {QUICK_STEPS} steps"
    )
    args = parser.parse_args()
    if args.quick:
        asyncio.run(main(QUICK_RUNS, QUICK_STEPS))
    else:
        asyncio.run(main(args.runs, args.steps))
