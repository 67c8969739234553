"""A RunRequest for a task: the one way the starter, the tests and the experiments build one."""

from __future__ import annotations

import uuid

from contracts import ProviderConfig, RunBudget, RunRequest, Runtime
from lab.catalog import Task


def build_request(
    task: Task,
    runtime: Runtime,
    *,
    max_steps: int | None = None,
    trial_id: str | None = None,
    provider: ProviderConfig | None = None,
) -> RunRequest:
    budget = task.spec.budget
    if max_steps is not None:
        budget = RunBudget(max_steps=max_steps, max_steps_per_task=min(budget.max_steps_per_task, max_steps))
    return RunRequest(
        run_id=f"{runtime}-{task.spec.id}-{uuid.uuid4().hex[:8]}",
        trial_id=trial_id,
        runtime=runtime,
        task_id=task.spec.id,
        goal=task.spec.goal,
        fixture_dir=str(task.fixture_dir),
        acceptance=task.spec.postconditions,
        provider=provider or ProviderConfig(kind="scripted", script_path=str(task.require_script())),
        budget=budget,
        profile=task.spec.profile,
    )
