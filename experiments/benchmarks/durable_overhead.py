"""What durability costs per step: durable and baseline runs of each coding task, side by side.

    uv run python -m experiments.benchmarks.durable_overhead [--runs 5] [--task ID ...] [--reading-steps 60] [--quick]

Starts its own dev server (fast dynamic config, headless, a temporary history file) on a free
port and a worker whose interceptor times every activity. For the durable runtime it splits
wall time into time inside activities (the work) and the rest (Temporal's orchestration:
scheduling, history writes, workflow tasks). The baseline does the same kind of work with no
orchestration; its steps differ in number (it has no plan and checks nothing between steps).

The coding tasks only: the operations tasks need the operations service, which this benchmark
does not start (and one of them waits for a person's approval). Besides them, the synthetic
reading task of `history_size` (N steps, each reading a window of a long file): the coding
tasks' few steps carry the run's own start (workspace, goal, plan, the workflow's first task),
its many steps show what one more step costs.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from agent import ops_world
from baseline import BaselineLoop
from contracts import RunResult
from experiments.benchmarks.history_size import write_task
from experiments.benchmarks.scratch_server import scratch_server
from host.build import build_worker
from lab.runs.catalog import Task, list_tasks, load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from workflows.outcome import run_result

# The quick run's one task, a run of it in each runtime: every column, in seconds.
QUICK_TASK = "bugfix-median"


@dataclass
class ActivityClock:
    seconds: dict[str, float] = field(default_factory=dict)
    calls: dict[str, int] = field(default_factory=dict)
    # workflow id -> activity type -> seconds inside it (local activities included)
    by_type: dict[str, Counter[str]] = field(default_factory=dict)

    # workflow id -> seconds inside local activities, which run within a workflow task
    local: dict[str, float] = field(default_factory=dict)

    def add(self, workflow_id: str, activity_type: str, elapsed: float, *, local: bool) -> None:
        self.seconds[workflow_id] = self.seconds.get(workflow_id, 0.0) + elapsed
        if local:
            self.local[workflow_id] = self.local.get(workflow_id, 0.0) + elapsed
        self.calls[workflow_id] = self.calls.get(workflow_id, 0) + 1
        self.by_type.setdefault(workflow_id, Counter())[activity_type] += elapsed


class _Timed(ActivityInboundInterceptor):
    def __init__(self, next: ActivityInboundInterceptor, clock: ActivityClock) -> None:
        super().__init__(next)
        self._clock = clock

    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        from temporalio import activity

        started = time.perf_counter()
        try:
            return await super().execute_activity(input)
        finally:
            info = activity.info()
            self._clock.add(
                info.workflow_id or "", info.activity_type, time.perf_counter() - started, local=info.is_local
            )


class TimingInterceptor(Interceptor):
    def __init__(self, clock: ActivityClock) -> None:
        self.clock = clock

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Timed(next, self.clock)


@dataclass
class Breakdown:
    """A durable step's wall time, in ms per step, by where it went."""

    activities: dict[str, float]
    workflow_tasks: float
    rest: float


async def breakdown(client: Client, clock: ActivityClock, runs: list[RunResult]) -> Breakdown:
    """Mean ms per step inside each activity, inside workflow tasks (from each workflow task's
    started and completed events, less the local activities run within them), and the rest:
    dispatch, polling and history writes."""
    steps = sum(len(r.steps) for r in runs)
    activities: Counter[str] = Counter()
    workflow_s = 0.0
    for r in runs:
        activities.update(clock.by_type.get(r.run_id, Counter()))
        started: dict[int, float] = {}
        async for event in client.get_workflow_handle(r.run_id).fetch_history_events():
            at = event.event_time.ToMicroseconds() / 1e6
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED:
                started[event.event_id] = at
            elif event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED:
                workflow_s += at - started.get(event.workflow_task_completed_event_attributes.started_event_id, at)
        workflow_s -= clock.local.get(r.run_id, 0.0)
    wall = sum(r.wall_time_s for r in runs)
    inside = sum(activities.values())
    return Breakdown(
        activities={name: seconds / steps * 1000 for name, seconds in activities.most_common()},
        workflow_tasks=workflow_s / steps * 1000,
        rest=(wall - inside - workflow_s) / steps * 1000,
    )


def print_breakdowns(breakdowns: list[tuple[str, Breakdown]]) -> None:
    names = sorted({name for _, b in breakdowns for name in b.activities})
    print("\nWhere a durable step's time goes, ms per step (activities include local ones):\n")
    print("| task | " + " | ".join(names) + " | workflow tasks | the rest |")
    print("| --- | " + " | ".join("---:" for _ in names) + " | ---: | ---: |")
    for task_id, b in breakdowns:
        cells = " | ".join(f"{b.activities.get(name, 0.0):.1f}" for name in names)
        print(f"| {task_id} | {cells} | {b.workflow_tasks:.1f} | {b.rest:.1f} |")


def tasks_to_time(quick: bool, wanted: list[str] | None) -> tuple[list[Task], list[str]]:
    """The catalog's tasks to time, and the ids of the operations tasks left out."""
    tasks = list_tasks()
    left_out = [task.spec.id for task in tasks if ops_world.seed_file(task.fixture_dir) is not None]
    timed = [task for task in tasks if task.spec.id not in left_out]
    if quick:
        wanted = [QUICK_TASK]
    if wanted is not None:
        unknown = sorted(set(wanted) - {task.spec.id for task in timed})
        if unknown:
            raise SystemExit(f"error: not a coding task of the catalog: {', '.join(unknown)}")
        timed = [task for task in timed if task.spec.id in wanted]
    return timed, left_out


def completed(result: RunResult, runtime: str) -> RunResult:
    """A run that did not complete did not do the task's work: its times are not its cost."""
    if not result.succeeded:
        raise SystemExit(f"{result.run_id}: the {runtime} run ended {result.outcome.value}: {result.reason}")
    return result


async def main(runs: int, tasks: list[Task], left_out: list[str], reading_steps: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-overhead-") as scratch:
        if reading_steps:
            tasks = [*tasks, load_task(str(write_task(Path(scratch) / "reading", reading_steps)))]
        await time_tasks(runs, tasks, left_out)


async def time_tasks(runs: int, tasks: list[Task], left_out: list[str]) -> None:
    async with scratch_server("lab-bench-") as (client, deps, _):
        clock = ActivityClock()
        breakdowns: list[tuple[str, Breakdown]] = []
        async with build_worker(client, dependencies=deps, interceptors=[TimingInterceptor(clock)]):
            print("| task | runtime | wall s | steps | activities | in activities s | orchestration ms/step |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
            for task in tasks:
                durable: list[RunResult] = []
                for _ in range(runs):
                    request = build_request(task, "durable")
                    handle = await start_durable_run(client, request)
                    durable.append(completed(await run_result(handle), "durable"))
                breakdowns.append((task.spec.id, await breakdown(client, clock, durable)))
                inside = [clock.seconds[r.run_id] for r in durable]
                calls = [clock.calls[r.run_id] for r in durable]
                overhead = [(r.wall_time_s - s) / len(r.steps) * 1000 for r, s in zip(durable, inside, strict=True)]
                print(
                    f"| {task.spec.id} | durable | {statistics.mean(r.wall_time_s for r in durable):.2f} "
                    f"| {len(durable[0].steps)} | {statistics.mean(calls):.0f} | {statistics.mean(inside):.2f} "
                    f"| {statistics.mean(overhead):.1f} |"
                )
                baseline = [
                    completed(await BaselineLoop(deps).run(build_request(task, "baseline")), "baseline")
                    for _ in range(runs)
                ]
                print(
                    f"| {task.spec.id} | baseline | {statistics.mean(r.wall_time_s for r in baseline):.2f} "
                    f"| {len(baseline[0].steps)} | - | - | 0 |"
                )
            if left_out:
                print(f"\nNot timed (they need the operations service): {', '.join(left_out)}")
            print_breakdowns(breakdowns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="runs of each task in each runtime")
    parser.add_argument(
        "--quick", action="store_true", help=f"a check that the benchmark runs, in seconds: one run of {QUICK_TASK}"
    )
    parser.add_argument("--task", action="append", help="time only this coding task of the catalog (repeatable)")
    parser.add_argument(
        "--reading-steps", type=int, default=60, help="steps of the synthetic reading task also timed (0: none)"
    )
    args = parser.parse_args()
    if args.runs < 1 or args.reading_steps < 0:
        parser.error("--runs must be at least 1 and --reading-steps at least 0")
    reading = min(args.reading_steps, 5) if args.quick else args.reading_steps
    asyncio.run(main(1 if args.quick else args.runs, *tasks_to_time(args.quick, args.task), reading))
