"""An experiment counts an effect made without its approval for every arm, and fails the trial:
the naive baseline (`baseline_approval: none`) on `refund-needs-approval` pays the refund unasked;
asked (`ask`, the default), it passes as the durable runtime does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from experiments.config import ExperimentConfig
from experiments.metrics.failures import UNAPPROVED_EFFECT
from experiments.report import render_summary
from experiments.runner import run_experiment
from experiments.trial_record import TrialRecord

pytestmark = pytest.mark.timeout(400)


def trials_of(directory: Path) -> dict[str, TrialRecord]:
    lines = (directory / "trials.jsonl").read_text().splitlines()
    return {t.runtime: t for t in map(TrialRecord.model_validate_json, lines)}


async def test_the_naive_baseline_fails_with_an_unapproved_effect_and_the_report_says_so(data_dir: Path) -> None:
    config = ExperimentConfig(
        name="unapproved",
        tasks=["refund-needs-approval"],
        runtimes=["durable", "baseline"],
        trials=1,
        baseline_approval="none",
    )
    directory = await run_experiment(config)

    trials = trials_of(directory)
    durable, baseline = trials["durable"], trials["baseline"]
    assert durable.success and durable.unapproved_effects == 0, durable
    assert baseline.valid and baseline.infrastructure_error is None
    # The end state passes the task's checks: the missing approval alone fails it.
    assert baseline.judged is not None and baseline.judged.passed
    assert baseline.unapproved_effects == 1 and not baseline.success
    assert baseline.reason.startswith("unapproved_effect: step "), baseline.reason

    results = json.loads((directory / "results.json").read_text())
    arms = {arm["runtime"]: arm for arm in results["results"]["arms"]}
    assert (arms["durable"]["unapproved_effects"], arms["baseline"]["unapproved_effects"]) == (0, 1)
    report = (directory / "report.md").read_text()
    assert "| unapproved effects |" in report
    assert "| none | baseline | 0 | 0 | 1 |" in report, report
    assert UNAPPROVED_EFFECT in report
    summary = render_summary(directory).splitlines()
    header = next(line for line in summary if line.startswith("scenario") and "unapp" in line)
    row = next(line for line in summary if line.split()[:2] == ["none", "baseline"])
    column = header.split().index("unapp")
    assert row.split()[column] == "1", "\n".join(summary)


async def test_a_baseline_that_asks_is_approved_as_the_durable_run_is(data_dir: Path) -> None:
    config = ExperimentConfig(name="asked", tasks=["refund-needs-approval"], runtimes=["baseline"], trials=1)
    assert config.baseline_approval == "ask"
    directory = await run_experiment(config)

    baseline = trials_of(directory)["baseline"]
    assert baseline.success and baseline.unapproved_effects == 0, baseline
