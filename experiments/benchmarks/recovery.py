"""Recovery after a crash, and what durability costs in history.

    uv run python -m experiments.benchmarks.recovery [--runs 20] [--quick]

Recovery: two workers poll (real processes); a fault SIGKILLs the one that reaches the given
point of the `refund-duplicate-charge` task. Measured from the kill (the fault's marker file,
written just before it): to the retried activity starting on the other worker (its
ActivityTaskStarted event), and to the workflow's next task after that activity less the
activity's own run time (the workflow moving on: a stall on the dead worker's sticky queue would
show here).

History: the bytes of Temporal history per step, for runs with no fault.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from agent.faults import FaultPlan, FaultPoint, FaultSpec
from contracts import RunResult
from experiments.harness import LabCluster
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from workflows.outcome import run_result

POINTS = {
    "model call": FaultSpec(point=FaultPoint.MODEL_CALL, step=2),
    "after the effect": FaultSpec(point=FaultPoint.AFTER_EFFECT, tool="issue_refund"),
    "during the tool": FaultSpec(point=FaultPoint.TOOL_EXECUTION, tool="create_ticket", delay_s=0),
}
ACTIVITY_OF = {
    "model call": "record_then_propose",
    "after the effect": "execute_and_check",
    "during the tool": "execute_and_check",
}
HISTORY_TASKS = ("bugfix-median", "rename-refactor", "refund-duplicate-charge")
# The quick run: one kill, at one point, and one task's history; both tables, in seconds (most
# of them the heartbeat timeout that tells Temporal the killed worker is gone).
QUICK_POINT, QUICK_HISTORY_TASK = "after the effect", "refund-duplicate-charge"


async def run_once(client: Client, task_id: str) -> tuple[str, RunResult]:
    request = build_request(load_task(task_id), "durable")
    handle = await start_durable_run(client, request)
    return request.run_id, await run_result(handle)


@dataclass
class Recovery:
    # From the kill to the killed activity starting again on the other worker.
    retried_s: float
    # From the kill to the workflow's next task after that activity, less the activity's own
    # run time: what a stall on the dead worker's sticky queue would add to.
    resumed_s: float


async def recovery(cluster: LabCluster, point: str, scratch: Path) -> Recovery:
    plan = scratch / f"plan-{point.replace(' ', '-')}-{os.urandom(3).hex()}.json"
    FaultPlan(faults=[POINTS[point]]).save(plan)
    workers = [await cluster.start_worker(plan), await cluster.start_worker(plan)]
    assert cluster.client is not None
    run_id, _ = await run_once(cluster.client, "refund-duplicate-charge")
    killed_at = (plan.with_name(plan.name + ".fired") / "0").stat().st_mtime
    events = [event async for event in cluster.client.get_workflow_handle(run_id).fetch_history_events()]
    for worker in workers:
        await worker.stop()
    at = {event.event_id: event.event_time.ToDatetime().timestamp() for event in events}
    retried = next(
        event
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        and event.activity_task_started_event_attributes.attempt > 1
        and at[event.event_id] > killed_at
    )
    completed = next(
        event
        for event in events
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED
        and event.activity_task_completed_event_attributes.started_event_id == retried.event_id
    )
    resumed = next(
        event
        for event in events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED and event.event_id > completed.event_id
    )
    work_s = at[completed.event_id] - at[retried.event_id]
    return Recovery(at[retried.event_id] - killed_at, at[resumed.event_id] - killed_at - work_s)


def _p95(times: Sequence[float]) -> float:
    return statistics.quantiles(times, n=20, method="inclusive")[-1] if len(times) > 1 else times[0]


async def history_bytes_per_step(cluster: LabCluster, task_id: str) -> tuple[float, int, int]:
    worker = await cluster.start_worker()
    assert cluster.client is not None
    run_id, result = await run_once(cluster.client, task_id)
    total = events = 0
    async for event in cluster.client.get_workflow_handle(run_id).fetch_history_events():
        total += event.ByteSize()
        events += 1
    await worker.stop()
    return total / len(result.steps), events, len(result.steps)


async def main(runs: int, points: Sequence[str], history_tasks: Sequence[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-recovery-") as scratch:
        # Its workers keep their runs' state in the scratch directory (told so at spawn).
        async with LabCluster(Path(scratch) / "cluster", data_dir=Path(scratch)) as cluster:
            print(
                "| kill point | retried activity | kills | retried s (median) | retried p95 | retried max "
                "| resumed s (median) | resumed p95 | resumed max |"
            )
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
            for point in points:
                measured = [await recovery(cluster, point, Path(scratch)) for _ in range(runs)]
                retried = [m.retried_s for m in measured]
                resumed = [m.resumed_s for m in measured]
                print(
                    f"| {point} | {ACTIVITY_OF[point]} | {len(measured)} | {statistics.median(retried):.2f} "
                    f"| {_p95(retried):.2f} | {max(retried):.2f} | {statistics.median(resumed):.2f} "
                    f"| {_p95(resumed):.2f} | {max(resumed):.2f} |"
                )
            print()
            print("| task | steps | history events | history bytes per step |")
            print("| --- | ---: | ---: | ---: |")
            for task_id in history_tasks:
                per_step, events, steps = await history_bytes_per_step(cluster, task_id)
                print(f"| {task_id} | {steps} | {events} | {per_step:,.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=20, help="kills at each point")
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"a check that the benchmark runs: one kill {QUICK_POINT}, one task's history ({QUICK_HISTORY_TASK})",
    )
    args = parser.parse_args()
    if args.quick:
        asyncio.run(main(1, [QUICK_POINT], [QUICK_HISTORY_TASK]))
    else:
        asyncio.run(main(args.runs, list(POINTS), HISTORY_TASKS))
