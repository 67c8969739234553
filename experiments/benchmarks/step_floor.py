"""The floor under `capacity`: steps of the same shape as a reading step that do nothing, on the
same dev server, with two worker processes, the lab's data converter and workflow runner.

    uv run python -m experiments.benchmarks.step_floor [--runs 1 8 32] [--steps 10] [--locals 1] [--remotes 1] [--quick]

A reading step of the agent is one remote activity (the last step's record and the proposal)
and one local one (verify and read) in the workflow task that follows it; before fused steps
it was three local ones (verify, read, record): `--locals 3`. A writing step is a remote one
(the record and the proposal), a local one (verify) and a second remote one (execute and check):
`--remotes 2`. Here each activity returns at once and the workflow decides nothing, so steps per
second is what Temporal, the SDK and this machine allow for that shape: the agent's own work is
what `capacity` adds on top. A run here has no start of its own (no workspace, goal or plan), so
compare with capacity's longer runs too.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from collections.abc import Sequence
from datetime import timedelta
from pathlib import Path

from pydantic import BaseModel
from temporalio import activity, workflow
from temporalio.client import Client, WorkflowHandle
from temporalio.worker import Worker

# The workflow sandbox imports this module again for FloorWorkflow: the lab's modules pass
# through as they are.
with workflow.unsafe.imports_passed_through():
    from experiments.benchmarks.scratch_server import scratch_server
    from lab.processes.child_process import die_with_parent
    from settings import PROJECT_ROOT

QUEUE = "step-floor"
WORKERS = 2
QUICK_RUNS, QUICK_STEPS = (1, 4), 3
READY = "floor worker polling"


class Shape(BaseModel):
    """A run's steps, each one remote activity, then `locals` local ones, then the rest of its
    `remotes` remote ones (a writing step: 2, its execution after its verification)."""

    steps: int
    locals: int = 1
    remotes: int = 1


class Step(BaseModel):
    run: str
    step: int
    # About the size of a proposal's input: the floor pays for payloads like the agent's.
    text: str = "x" * 1000


@activity.defn
async def remote_step(step: Step) -> Step:
    return step


@activity.defn
async def local_step(step: Step) -> Step:
    return step


@workflow.defn
class FloorWorkflow:
    @workflow.run
    async def run(self, shape: Shape) -> int:
        for k in range(1, shape.steps + 1):
            step = Step(run=workflow.info().workflow_id, step=k)
            await workflow.execute_activity(remote_step, step, start_to_close_timeout=timedelta(seconds=30))
            for _ in range(shape.locals):
                await workflow.execute_local_activity(local_step, step, start_to_close_timeout=timedelta(seconds=30))
            for _ in range(shape.remotes - 1):
                await workflow.execute_activity(remote_step, step, start_to_close_timeout=timedelta(seconds=30))
        return shape.steps


async def serve(address: str) -> None:
    """A worker process: the floor workflow and its two activities."""
    from host.client import connect
    from host.workflow_runner import runner_for

    client = await connect(address)
    activities = [remote_step, local_step]
    runner = runner_for(client.data_converter)  # as the lab's workers run workflows
    async with Worker(
        client, task_queue=QUEUE, workflows=[FloorWorkflow], activities=activities, workflow_runner=runner
    ):
        print(READY, flush=True)
        await asyncio.Event().wait()


async def start_worker(address: str, data_dir: Path) -> asyncio.subprocess.Process:
    """A floor worker, keeping what it stores under `data_dir` (told so at spawn)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "experiments.benchmarks.step_floor",
        "--serve",
        address,
        cwd=PROJECT_ROOT,
        env={**os.environ, "AGENT_LAB_DATA": str(data_dir)},
        stdout=asyncio.subprocess.PIPE,
        preexec_fn=die_with_parent,
    )
    assert process.stdout is not None
    line = await asyncio.wait_for(process.stdout.readline(), timeout=60)
    if READY.encode() not in line:
        raise SystemExit(f"a floor worker did not start: {line!r}")
    return process


async def load(client: Client, runs: int, shape: Shape) -> tuple[float, float]:
    """Steps per second over `runs` concurrent runs, and the median step latency in ms."""
    started = time.perf_counter()
    handles = [
        await client.start_workflow(FloorWorkflow.run, shape, id=f"floor-{uuid.uuid4().hex[:8]}", task_queue=QUEUE)
        for _ in range(runs)
    ]
    walls = await asyncio.gather(*(_timed(handle) for handle in handles))
    wall = time.perf_counter() - started
    return runs * shape.steps / wall, statistics.median(walls) / shape.steps * 1000


async def _timed(handle: WorkflowHandle[FloorWorkflow, int]) -> float:
    started = time.perf_counter()
    await handle.result()
    return time.perf_counter() - started


async def main(loads: Sequence[int], shape: Shape) -> None:
    async with scratch_server("bench-floor-") as (client, deps, _):
        address = client.service_client.config.target_host
        workers = [await start_worker(address, deps.data_dir) for _ in range(WORKERS)]
        try:
            await load(client, 1, shape)  # warm-up: imports, caches, the first workflow
            measured = [(runs, *await load(client, runs, shape)) for runs in loads]
        finally:
            for process in workers:
                process.kill()
                await process.wait()
    steps, shaped = shape.steps, f"{shape.remotes} remote + {shape.locals} local activities"
    print(f"{WORKERS} worker processes, one dev server; runs of {steps} steps of {shaped}\n")
    print("| concurrent runs | steps | steps/s | ms per step of a run (median) |")
    print("| ---: | ---: | ---: | ---: |")
    for runs, per_s, latency in measured:
        print(f"| {runs} | {runs * steps} | {per_s:.1f} | {latency:.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, nargs="+", default=[1, 8, 32], help="concurrent runs, one load each")
    parser.add_argument("--steps", type=int, default=10, help="steps in each run")
    parser.add_argument(
        "--locals", type=int, default=1, help="local activities after each step's remote one (3: before fused steps)"
    )
    parser.add_argument(
        "--remotes", type=int, default=1, help="remote activities in each step (2: a writing step's execution)"
    )
    parser.add_argument(
        "--quick", action="store_true", help=f"a check that it runs: loads of {QUICK_RUNS} runs of {QUICK_STEPS} steps"
    )
    parser.add_argument("--serve", metavar="ADDRESS", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve(args.serve))
    elif args.quick:
        asyncio.run(main(QUICK_RUNS, Shape(steps=QUICK_STEPS, locals=args.locals, remotes=args.remotes)))
    else:
        if min(args.runs) < 1 or args.steps < 1 or args.locals < 0 or args.remotes < 1:
            parser.error("--runs, --steps and --remotes must be at least 1, --locals at least 0")
        asyncio.run(main(args.runs, Shape(steps=args.steps, locals=args.locals, remotes=args.remotes)))
