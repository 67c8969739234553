"""Wall time of a durable run one subtask at a time against the same run with parallel subtasks.

    uv run python -m experiments.benchmarks.parallel_subtasks [--runs 5] [--task ID ...] [--quick]

Starts its own dev server (fast dynamic config, headless, a temporary history file) on a free
port and a worker whose interceptor times every activity, then runs each task with the scripted
provider both ways, alternating (sequential, parallel, sequential, ...) so that a slow moment of
the machine is shared. With parallel subtasks, the plan's independent tasks are child workflows
in git worktrees of their own, merged back (docs/parallel-subtasks.md).

Besides the wall time, where it went: seconds inside each kind of activity, summed over the run
and its children (work that overlaps in a parallel run sums to more than its wall time).
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
from collections import Counter

from contracts import RunResult
from experiments.benchmarks.durable_overhead import ActivityClock, TimingInterceptor, completed
from experiments.benchmarks.scratch_server import scratch_server
from host.build import build_worker
from lab.runs.catalog import Task, load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from workflows.outcome import run_result

TASKS = ["independent-parts", "dependent-subtasks"]
MODES = {"sequential": False, "parallel": True}


async def one_run(client, task: Task, parallel: bool) -> RunResult:  # type: ignore[no-untyped-def]
    request = build_request(task, "durable", parallel_subtasks=parallel)
    return completed(await run_result(await start_durable_run(client, request)), "durable")


def inside(clock: ActivityClock, result: RunResult) -> Counter[str]:
    """Seconds inside each activity type, the run's and its children's (ids `RUN.vN.TASK`)."""
    total: Counter[str] = Counter()
    for workflow_id, by_type in clock.by_type.items():
        if workflow_id == result.run_id or workflow_id.startswith(result.run_id + "."):
            total.update(by_type)
    return total


async def main(runs: int, tasks: list[Task]) -> None:
    async with scratch_server("lab-bench-parallel-") as (client, deps, _):
        clock = ActivityClock()
        async with build_worker(client, dependencies=deps, interceptors=[TimingInterceptor(clock)]):
            # A first run of each kind warms the worker (imports, the sandbox's probe): not timed.
            for parallel in MODES.values():
                await one_run(client, tasks[0], parallel)
            timed: dict[tuple[str, str], list[RunResult]] = {}
            for task in tasks:
                for _ in range(runs):
                    for mode, parallel in MODES.items():
                        timed.setdefault((task.spec.id, mode), []).append(await one_run(client, task, parallel))
            print("| task | mode | runs | wall s mean | wall s min | steps | in activities s | checks s |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
            for (task_id, mode), results in timed.items():
                spent = [inside(clock, result) for result in results]
                checks = [s["check_postconditions"] + s["execute_and_check"] for s in spent]
                print(
                    f"| {task_id} | {mode} | {len(results)} | {statistics.mean(r.wall_time_s for r in results):.2f} "
                    f"| {min(r.wall_time_s for r in results):.2f} | {len(results[0].steps)} "
                    f"| {statistics.mean(sum(s.values()) for s in spent):.2f} | {statistics.mean(checks):.2f} |"
                )
            print("\nSeconds inside each activity per run (mean; a parallel run's children included):\n")
            names = sorted({name for results in timed.values() for r in results for name in inside(clock, r)})
            print("| task | mode | " + " | ".join(names) + " |")
            print("| --- | --- | " + " | ".join("---:" for _ in names) + " |")
            for (task_id, mode), results in timed.items():
                spent = [inside(clock, result) for result in results]
                cells = " | ".join(f"{statistics.mean(s[name] for s in spent):.2f}" for name in names)
                print(f"| {task_id} | {mode} | {cells} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5, help="runs of each task each way")
    parser.add_argument("--task", action="append", choices=TASKS, help="time only this task (repeatable)")
    parser.add_argument("--quick", action="store_true", help="a check that the benchmark runs: one run of each way")
    args = parser.parse_args()
    if args.runs < 1:
        parser.error("--runs must be at least 1")
    chosen = [load_task(task_id) for task_id in (args.task or TASKS)]
    asyncio.run(main(1 if args.quick else args.runs, chosen[:1] if args.quick else chosen))
