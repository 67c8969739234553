"""A counterfactual experiment end to end, with real processes: every durable trial forked after
its step 1 once it ended, live from step 2 with the task's own script, and compared.

The clean trial's fork does what the trial did (the same script from step 2: the same path).
The garbled trial, whose model answered nothing usable at any step, runs out of steps; its
fork keeps the trial's garbled step 1 and, answered sanely from step 2, refunds once, opens
its ticket and succeeds: fixed. The fork's world is the trial's after step 1, in the
experiment's own operations service. The baseline trial is not forked.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts import NoiseConfig, RunBudget, TrialRecord
from contracts.experiment import CounterfactualSpec, ExperimentConfig, FaultKind, FaultScenario
from experiments.metrics import CounterfactualMetrics
from experiments.report import read_results
from experiments.runner import run_experiment

pytestmark = pytest.mark.timeout(400)


async def test_every_durable_trial_is_forked_after_step_k_and_compared(data_dir: Path) -> None:
    config = ExperimentConfig(
        name="counterfactual",
        tasks=["refund-duplicate-charge"],
        runtimes=["durable", "baseline"],
        trials=1,
        concurrency=2,
        # Four steps: the task takes three; a garbled run is out of steps after four.
        budget=RunBudget(max_steps=4, max_steps_per_task=4),
        scenarios=[
            FaultScenario(name="none"),
            FaultScenario(
                name="garbled", kind=FaultKind.MODEL_NOISE, noise=NoiseConfig(malformed_json=1.0), runtimes=["durable"]
            ),
        ],
        counterfactual=CounterfactualSpec(from_step=1),
    )
    directory = await run_experiment(config)

    lines = (directory / "trials.jsonl").read_text().splitlines()
    trials = {(t.runtime, t.scenario): t for t in map(TrialRecord.model_validate_json, lines)}
    assert set(trials) == {("durable", "none"), ("baseline", "none"), ("durable", "garbled")}
    assert trials[("baseline", "none")].counterfactual is None

    clean = trials[("durable", "none")]
    fork = clean.counterfactual
    assert clean.success and fork is not None and fork.forked, fork
    assert fork.run_id.startswith(f"{clean.run_ids[0]}-k1-")
    assert fork.success and fork.first_difference is None and fork.steps == clean.steps == 3
    assert fork.live_model_calls == 2  # steps 2 and 3; step 1, the goal and the plan carried
    assert fork.invariant_violations == [] and fork.duplicate_effects == 0

    garbled = trials[("durable", "garbled")]
    fork = garbled.counterfactual
    assert not garbled.success and garbled.outcome == "BUDGET_EXHAUSTED", garbled
    assert garbled.faults_fired == ["model_noise"]
    assert fork is not None and fork.success, fork
    assert fork.first_difference == 2 and fork.steps == 4
    assert fork.judged is not None and fork.judged.passed and fork.duplicate_effects == 0
    assert fork.invariant_violations == []

    [clean_row, garbled_row] = read_results(directory).results.counterfactuals
    assert isinstance(clean_row, CounterfactualMetrics)
    assert (clean_row.scenario, clean_row.forked, clean_row.same_path, clean_row.fixed) == ("none", 1, 1, 0)
    assert (garbled_row.scenario, garbled_row.fixed, garbled_row.broken) == ("garbled", 1, 0)
    assert garbled_row.trial_success.successes == 0 and garbled_row.fork_success.successes == 1
    report = (directory / "report.md").read_text()
    assert "### Counterfactuals: each durable trial forked after a step" in report
    assert f"`{fork.run_id}`" in report


def test_a_counterfactual_needs_durable_trials_and_the_experiments_own_local_model() -> None:
    base = {"name": "x", "tasks": ["rename-refactor"], "trials": 1}
    with pytest.raises(ValueError, match="only durable trials can be forked"):
        ExperimentConfig.model_validate(base | {"runtimes": ["baseline"], "counterfactual": {"from_step": 1}})
    other_model = {"from_step": 1, "provider": {"kind": "local", "model": "qwen"}}
    with pytest.raises(ValueError, match="a local model must be the experiment's own"):
        ExperimentConfig.model_validate(base | {"runtimes": ["durable"], "counterfactual": other_model})
    with pytest.raises(ValueError, match="from_step"):
        ExperimentConfig.model_validate(base | {"runtimes": ["durable"], "counterfactual": {"from_step": -1}})
