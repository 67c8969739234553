"""The arms' comparison in `report.md` and the terminal summary: cost and paired differences up
front, the scripted oracle's cells as outcomes, and results written before the comparison
existed, which still load and are redrawn with it."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from experiments.config import ProviderSpec
from experiments.report import read_results, read_trials, render_summary, rewrite_report, write_report
from settings import PROJECT_ROOT
from tests.test_arm_comparison import CONFIG, trials_jsonl

STARTED = datetime(2026, 12, 4, 3, 0, tzinfo=UTC)
FINISHED = datetime(2026, 12, 4, 3, 5, tzinfo=UTC)


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("hand-made") / "report"
    trials = read_trials(trials_jsonl(tmp_path_factory.mktemp("raw") / "trials.jsonl"))
    write_report(directory, CONFIG, "hand-made-1", trials, STARTED, FINISHED)
    return directory


def test_the_report_leads_with_cost_and_the_paired_comparison(report_dir: Path) -> None:
    report = (report_dir / "report.md").read_text(encoding="utf-8")
    headings = [
        "## Configuration",
        "## Cost per trial and per success",
        "## Arms compared on paired trials",
        "### Paired success difference",
        "### Primary fault endpoint: P(fail under fault | succeeded without it)",
        "### Intention to treat beside per protocol",
        "### Deterministic replicates: each cell's outcomes",
        "### Cost per scenario",
        "## Results",
    ]
    positions = [report.index(f"\n{heading}\n") for heading in headings]
    assert positions == sorted(positions)
    lines = report.splitlines()
    # The figures worked out by hand in test_arm_comparison, as the tables write them.
    assert any(line.startswith("| durable | 12 | 10 | 1000 [") and "| 1200 [" in line for line in lines)
    assert "| durable - baseline | all | intention-to-treat | 12 (3) | 10 / 6 | +0.33 |" in report
    assert "| durable - baseline | kill | per-protocol | 5 (3) | 4 / 1 | +0.60 |" in report
    # Per protocol is shown only where it leaves a pair out.
    assert "| durable - baseline | none | per-protocol |" not in report
    assert "| baseline | kill | none | intention-to-treat | 5 (3) | 4 | 0.80 |" in report
    assert "| kill | baseline | 1/6 | 0.17 | 1/5 | 0.20 | the kill never fired (1) |" in report
    assert "10000 resamples, numpy seed 0" in report
    results = json.loads((report_dir / "results.json").read_text(encoding="utf-8"))["results"]
    assert results["comparison"]["bootstrap"] == {"resamples": 10000, "seed": 0, "confidence": 0.95}


def test_the_scripted_oracle_s_cells_are_shown_as_outcomes(report_dir: Path) -> None:
    report = (report_dir / "report.md").read_text(encoding="utf-8")
    assert "**The provider is scripted.**" in report
    assert "| task-a | kill | pass x2 | duplicate effect x1; fail: no outcome x1 |" in report
    assert (
        "| task-c | kill | pass x2 | fail: no outcome x1; fail: no outcome (invalid: the kill never fired) x1 |"
        in report
    )


def test_a_model_s_trials_are_not_shown_as_replicates(tmp_path: Path) -> None:
    config = CONFIG.model_copy(update={"provider": ProviderSpec(kind="local", model="qwen15")})
    trials = read_trials(trials_jsonl(tmp_path / "trials.jsonl"))
    write_report(tmp_path / "report", config, "hand-made-2", trials, STARTED, FINISHED)
    report = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "## Arms compared on paired trials" in report
    assert "Deterministic replicates" not in report
    assert "The provider is scripted" not in report


def test_the_terminal_summary_shows_cost_and_the_paired_difference(report_dir: Path) -> None:
    summary = render_summary(report_dir)
    lines = summary.splitlines()
    assert "Cost over every trial, all scenarios: per trial / per success [95% CI over tasks]" in lines
    durable = next(line for line in lines if line.startswith("durable ") and "10/12" in line)
    assert "1000 / 1200 [" in durable
    difference = next(line for line in lines if line.startswith("durable - baseline"))
    assert "12 (3)" in difference and "+0.33" in difference
    assert max(map(len, lines)) <= 120


@pytest.mark.parametrize("name", ["small", "small-faults"])
def test_a_published_result_written_before_the_comparison_loads_and_is_redrawn_with_it(
    name: str, tmp_path: Path
) -> None:
    copy = tmp_path / name
    copy.mkdir()
    for file in ("results.json", "trials.jsonl"):
        shutil.copy(PROJECT_ROOT / "docs" / "results" / name / file, copy / file)
    old = read_results(copy)
    assert old.results.comparison is None
    assert "not in these results" in render_summary(copy)

    rewrite_report(copy)
    redrawn = read_results(copy).results.comparison
    assert redrawn is not None and redrawn.paired and redrawn.costs and redrawn.populations
    report = (copy / "report.md").read_text(encoding="utf-8")
    assert "## Cost per trial and per success" in report
    assert "### Paired success difference" in report
    pairs = {(p.a, p.b, p.scenario, p.population): p for p in redrawn.paired}
    assert ("durable", "baseline", "all", "intention-to-treat") in pairs
