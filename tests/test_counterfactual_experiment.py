"""A counterfactual experiment end to end, with real processes: every durable trial forked after
its step 1 once it ended, live from step 2 with the task's own script, and compared.

The clean trial's fork does what the trial did (the same script from step 2: the same path).
The garbled trial, whose model answered nothing usable at any step, runs out of steps; its
fork keeps the trial's garbled step 1 and, answered sanely from step 2, refunds once, opens
its ticket and succeeds: fixed. The fork's world is the trial's after step 1, in the
experiment's own operations service. The baseline trial is not forked.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
import yaml

from contracts import NoiseConfig, RunBudget
from experiments.config import CounterfactualConfig, CounterfactualSpec, ExperimentConfig, FaultKind, FaultScenario
from experiments.config_loader import ConfigError, load_config
from experiments.counterfactual_runner import run_counterfactuals
from experiments.metrics import CounterfactualMetrics
from experiments.report import read_results, read_trials
from experiments.runner import run_experiment
from experiments.trial_record import TrialRecord
from tests.test_cli import assert_one_line_error, starter

pytestmark = pytest.mark.timeout(400)


async def test_every_durable_trial_is_forked_after_step_k_and_compared(data_dir: Path) -> None:
    config = ExperimentConfig(
        name="counterfactual",
        tasks=["refund-duplicate-charge"],
        runtimes=["durable", "baseline"],
        trials=1,
        concurrency=2,
        # Four steps: the task takes three; a garbled run is out of steps after four.
        budget=RunBudget(max_steps=4, max_steps_per_subtask=4),
        scenarios=[
            FaultScenario(name="none"),
            FaultScenario(
                name="garbled", kind=FaultKind.MODEL_NOISE, noise=NoiseConfig(malformed_json=1.0), runtimes=["durable"]
            ),
        ],
        counterfactual=CounterfactualSpec(from_step=1),
    )
    before = os.environ.get("AGENT_LAB_OPS_URL")
    directory = await run_experiment(config)
    # The cluster's service was this process's only while the cluster was up.
    assert os.environ.get("AGENT_LAB_OPS_URL") == before

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
    assert (directory / "counterfactual.png").is_file()

    # Later, from the record the experiment kept: the same trials forked after step 2 instead.
    # The garbled trial's first two steps leave two of its four: not enough to finish.
    record = directory / "record"
    assert sorted(path.name for path in record.iterdir()) == ["ops.sqlite", "temporal.sqlite"]
    kept = (record / "temporal.sqlite").read_bytes()
    later = CounterfactualConfig(name="later", of=directory.name, counterfactual=CounterfactualSpec(from_step=2))
    again = await run_counterfactuals(later)
    assert read_results(again).forks_of == directory.name
    forks = {t.scenario: t.counterfactual for t in read_trials(again / "trials.jsonl") if t.runtime == "durable"}
    assert forks["none"] is not None and forks["none"].success and forks["none"].first_difference is None
    assert forks["garbled"] is not None and forks["garbled"].outcome == "BUDGET_EXHAUSTED"
    assert forks["garbled"].steps == 4 and forks["garbled"].live_model_calls == 2
    [_, garbled_later] = read_results(again).results.counterfactuals
    assert (garbled_later.from_step, garbled_later.fixed) == (2, 0)
    assert f"Counterfactuals of experiment `{directory.name}`" in (again / "report.md").read_text()
    assert (record / "temporal.sqlite").read_bytes() == kept  # forked from a copy

    # A report directory without its record (an experiment from before records were kept).
    unrecorded = directory.with_name("unrecorded-20261101-000000")
    unrecorded.mkdir()
    for name in ("results.json", "trials.jsonl"):
        shutil.copy(directory / name, unrecorded / name)
    with pytest.raises(ConfigError, match=r"^unrecorded-20261101-000000 kept no record of its runs"):
        await run_counterfactuals(later.model_copy(update={"of": str(unrecorded)}))


def test_a_counterfactual_needs_durable_trials_and_the_experiments_own_local_model(tmp_path: Path) -> None:
    base = {"name": "x", "tasks": ["rename-refactor"], "trials": 1}
    with pytest.raises(ValueError, match="only durable trials can be forked"):
        ExperimentConfig.model_validate(base | {"runtimes": ["baseline"], "counterfactual": {"from_step": 1}})
    with pytest.raises(ValueError, match="from_step"):
        ExperimentConfig.model_validate(base | {"runtimes": ["durable"], "counterfactual": {"from_step": -1}})
    other_model = {"from_step": 1, "provider": {"kind": "local", "model": "qwen"}}
    path = tmp_path / "other-model.yaml"
    path.write_text(yaml.safe_dump(base | {"runtimes": ["durable"], "counterfactual": other_model}))
    with pytest.raises(ConfigError, match="a local model must be the experiment's own"):
        load_config(path)


def test_counterfactuals_of_an_experiment_not_recorded_are_one_line(tmp_path: Path, data_dir: Path) -> None:
    path = tmp_path / "later.yaml"
    path.write_text(yaml.safe_dump({"name": "later", "of": "no-such-experiment", "counterfactual": {"from_step": 1}}))
    assert isinstance(load_config(path), CounterfactualConfig)
    assert_one_line_error(starter("experiment", "run", "--config", str(path)), "no recorded experiment")
