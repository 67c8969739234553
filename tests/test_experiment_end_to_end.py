"""A small experiment end to end, with real processes: a clean scenario, a kill after a side
effect, a tool call that times out once, and a fault that cannot fire (which makes its trials
invalid, as the report says)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.config import ExperimentConfig, FaultKind, FaultScenario
from experiments.report import render_summary
from experiments.runner import run_experiment
from experiments.trial_record import TrialRecord

pytestmark = pytest.mark.timeout(400)


async def test_a_small_experiment(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = ExperimentConfig(
        name="small",
        tasks=["refund-duplicate-charge"],
        runtimes=["durable", "baseline"],
        trials=1,
        concurrency=2,
        scenarios=[
            FaultScenario(name="none"),
            FaultScenario(name="kill-after-effect", kind=FaultKind.KILL, point="after_effect", tool="issue_refund"),
            # The refund times out once (before acting); both runtimes must try it again.
            FaultScenario(
                name="refund-times-out", kind=FaultKind.TOOL_TIMEOUT, point="tool_execution", tool="issue_refund"
            ),
            # The task has 3 steps: a kill at step 40 never fires.
            FaultScenario(name="never", kind=FaultKind.KILL, point="model_call", step=40),
        ],
    )
    directory = await run_experiment(config)

    for name in ("report.md", "results.json", "trials.jsonl", "pass_hat_k.png", "success_by_fault.png"):
        assert (directory / name).is_file(), name
    # The cluster's database and logs, the fault book: megabytes the report does not need.
    assert not (directory / "scratch").exists()
    # Not a terminal here: one plain line per finished trial, the last with every count.
    progress = capsys.readouterr().err.splitlines()
    assert progress[0] == "starting the cluster", progress
    finished = [line for line in progress if "/8 " in line]
    assert [line.split()[0] for line in finished] == [f"{done}/8" for done in range(1, 9)]
    assert "0 running, 1 failed, 0 infrastructure errors, 2 invalid" in finished[-1], progress
    lines = (directory / "trials.jsonl").read_text().splitlines()
    trials = {(t.runtime, t.scenario): t for t in map(TrialRecord.model_validate_json, lines)}
    assert len(trials) == 8 and all(t.infrastructure_error is None for t in trials.values())

    clean = trials[("durable", "none")], trials[("baseline", "none")]
    assert all(t.success and t.valid and t.duplicate_effects == 0 for t in clean)

    durable, baseline = trials[("durable", "kill-after-effect")], trials[("baseline", "kill-after-effect")]
    assert durable.valid and baseline.valid
    assert durable.faults_fired == baseline.faults_fired == ["kill"]
    # The durable run recovered the refund through its probe; the baseline, rerun by hand,
    # paid it twice.
    assert durable.success and durable.duplicate_effects == 0
    assert durable.recovery_time_s is not None and durable.recovery_time_s > 0
    assert not baseline.success and baseline.duplicate_effects == 1
    assert len(baseline.run_ids) == 2

    timed_out = trials[("durable", "refund-times-out")], trials[("baseline", "refund-times-out")]
    assert all(t.valid and t.faults_fired == ["tool_timeout"] for t in timed_out)
    assert all(t.success and t.duplicate_effects == 0 and t.tokens_wasted > 0 for t in timed_out)

    # The lab's invariants held over every durable trial, the kill and the timeout included.
    durable_trials = [t for t in trials.values() if t.runtime == "durable"]
    assert all(t.invariant_violations == [] for t in durable_trials), [t.invariant_violations for t in durable_trials]
    assert all(t.invariant_violations is None for t in trials.values() if t.runtime == "baseline")

    never = trials[("durable", "never")], trials[("baseline", "never")]
    assert all(not t.valid and "did not fire: kill" in t.invalid_reason for t in never)

    results = json.loads((directory / "results.json").read_text())
    assert results["experiment_id"] == directory.name
    summary = render_summary(directory)
    assert "kill-after-effect" in summary and "Invalid trials: 2" in summary
    report = (directory / "report.md").read_text()
    assert "did not fire" in report
    assert "4 durable trials checked over their ledger and Temporal history" in report
    assert "No violation: every invariant held in every trial checked." in report
