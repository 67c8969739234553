"""A RunRequest for a task: the one way the starter, the tests and the experiments build one."""

from __future__ import annotations

import uuid
from datetime import timedelta

from contracts import ProviderConfig, RunBudget, RunRequest, Runtime
from lab.runs.catalog import Task
from settings import in_project

# A run's workflow task timeout. A worker killed while it holds a workflow task keeps it for
# this long (10 s by default: the soak saw runs wait exactly that). Long local activities do
# not count against it (the worker heartbeats the task), and a task that times out is only
# retried elsewhere, so a short one costs a replay at worst.
WORKFLOW_TASK_TIMEOUT = timedelta(seconds=2)

# How often a new run's model may claim a subtask done while its checks find it not done, unless
# its task sets `max_refused_claims`. Each refusal tells the model so and lets it go on; in every
# live-model run recorded before the limit (docs/results/: 38 durable trials with a refused
# claim, pilots included), none went on to succeed, while each spent the rest of its step budget.
# The limit keeps one more try after the model is told the claim was refused.
REFUSED_CLAIMS = 2


def build_request(
    task: Task,
    runtime: Runtime,
    *,
    max_steps: int | None = None,
    trial_id: str | None = None,
    provider: ProviderConfig | None = None,
    parallel_subtasks: bool = False,
) -> RunRequest:
    budget = task.spec.budget
    if max_steps is not None:
        budget = RunBudget(max_steps=max_steps, max_steps_per_subtask=min(budget.max_steps_per_subtask, max_steps))
    if budget.max_refused_claims is None:
        budget = budget.model_copy(update={"max_refused_claims": REFUSED_CLAIMS})
    return RunRequest(
        run_id=f"{runtime}-{task.spec.id}-{uuid.uuid4().hex[:8]}",
        trial_id=trial_id,
        runtime=runtime,
        task_id=task.spec.id,
        goal=task.spec.goal,
        # Relative to the project: a worker in another checkout (a container) finds them there.
        fixture_dir=in_project(task.fixture_dir),
        acceptance=task.spec.postconditions,
        provider=provider or ProviderConfig(kind="scripted", script_path=in_project(task.require_script())),
        budget=budget,
        profile=task.spec.profile,
        parallel_subtasks=parallel_subtasks,
        tools=task.spec.offered_tools(),
    )
