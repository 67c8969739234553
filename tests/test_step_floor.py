"""The step floor's workflow runs the step shape it is asked for (the benchmark itself runs in
tests/test_benchmarks.py, with the slow tests)."""

from __future__ import annotations

import uuid

from temporalio import activity
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from experiments.benchmarks.step_floor import FloorWorkflow, Shape, Step


async def test_a_floor_step_runs_the_shape_asked_for(env: WorkflowEnvironment) -> None:
    """A writing step's shape: its first remote activity, its local ones, then its second remote one."""
    order: list[str] = []

    @activity.defn(name="remote_step")
    async def remote(step: Step) -> Step:
        order.append(f"remote {step.step}")
        return step

    @activity.defn(name="local_step")
    async def local(step: Step) -> Step:
        order.append(f"local {step.step}")
        return step

    queue = f"floor-{uuid.uuid4().hex[:8]}"
    async with Worker(env.client, task_queue=queue, workflows=[FloorWorkflow], activities=[remote, local]):
        shape = Shape(steps=2, locals=1, remotes=2)
        done = await env.client.execute_workflow(FloorWorkflow.run, shape, id=queue, task_queue=queue)
    assert done == 2
    assert order == ["remote 1", "local 1", "remote 1", "remote 2", "local 2", "remote 2"]
