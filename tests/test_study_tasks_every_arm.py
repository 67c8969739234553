"""The study's tasks (tag `study`) solved by the scripted oracle in every arm the study compares,
run as the study runs them: an experiment with every arm, no fault, the same information and
retries for every arm. The per-runtime tests (test_study_coding_tasks, test_study_ops_tasks)
check each task's shape and traps; this one, that no arm is left unable to solve a task."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts.retries import RetryBudget
from experiments.config import RUNTIMES, ExperimentConfig
from experiments.runner import run_experiment
from experiments.trial_record import TrialRecord
from lab.runs.catalog import list_tasks

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


async def test_the_oracle_solves_every_study_task_in_every_arm(data_dir: Path) -> None:
    tasks = [task.spec.id for task in list_tasks() if "study" in task.spec.tags]
    assert len(tasks) >= 12
    config = ExperimentConfig(
        name="study-oracle",
        tasks=tasks,
        runtimes=list(RUNTIMES),
        trials=1,
        concurrency=2,
        show_acceptance=False,
        retries=RetryBudget(initial_backoff_s=0.1, backoff_coefficient=4, max_backoff_s=5),
    )
    directory = await run_experiment(config)

    trials = [TrialRecord.model_validate_json(line) for line in (directory / "trials.jsonl").read_text().splitlines()]
    assert {(t.task_id, t.runtime) for t in trials} == {(task, arm) for task in tasks for arm in RUNTIMES}
    failed = [(t.task_id, t.runtime, t.reason or t.infrastructure_error) for t in trials if not t.success]
    assert failed == []
    assert all(t.duplicate_effects == 0 and t.unapproved_effects == 0 for t in trials)
