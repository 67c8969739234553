"""A report written from synthetic trials: its files, its numbers and the terminal summary."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from contracts.errors import ReportError
from experiments.config import ExperimentConfig, FaultKind
from experiments.report import latest_report, render_summary, rewrite_report, write_report
from experiments.runner import plan_trials
from experiments.trial_record import TrialRecord

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
STARTED = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)
FINISHED = datetime(2026, 1, 5, 9, 12, tzinfo=UTC)

CONFIG = ExperimentConfig.model_validate(
    {
        "name": "synthetic",
        "description": "Two runtimes, two scenarios, two tasks, three trials each.",
        "tasks": ["bugfix-median", "refund-duplicate-charge"],
        "runtimes": ["durable", "baseline"],
        "trials": 3,
        "seed": 7,
        "scenarios": [
            {"name": "none"},
            {"name": "kill-after-effect", "kind": "kill", "point": "after_effect", "step": 2},
        ],
    }
)


def synthetic_trials() -> list[TrialRecord]:
    """Durable succeeds everywhere but one infrastructure failure; the baseline loses refunds
    to duplicate effects under the kill; one baseline kill never fired."""
    trials = []
    for scenario in CONFIG.scenarios:
        for runtime in CONFIG.runtimes:
            for task in CONFIG.tasks:
                for index in range(CONFIG.trials):
                    killed = scenario.kind == FaultKind.KILL
                    duplicated = killed and runtime == "baseline" and task == "refund-duplicate-charge"
                    infrastructure = killed and runtime == "durable" and task == "bugfix-median" and index == 2
                    never_fired = killed and runtime == "baseline" and task == "bugfix-median" and index == 1
                    trials.append(
                        TrialRecord(
                            experiment_id="synthetic-1",
                            trial_id=f"{scenario.name}-{runtime}-{task}-{index}",
                            task_id=task,
                            runtime=runtime,
                            scenario=scenario.name,
                            fault_kind=scenario.kind,
                            trial_index=index,
                            seed=CONFIG.seed + index,
                            valid=not never_fired,
                            invalid_reason="the kill at after_effect never fired" if never_fired else "",
                            success=not duplicated and not infrastructure,
                            steps=4,
                            tokens=1000 + 200 * index + (600 if killed and runtime == "baseline" else 0),
                            tokens_wasted=300 if killed else 0,
                            cost_usd=0.001,
                            wall_time_s=(2.0 if runtime == "durable" else 1.2) + index * 0.3 + (1.5 if killed else 0),
                            duplicate_effects=1 if duplicated else 0,
                            recovery_time_s=0.8 if killed and runtime == "durable" else None,
                            faults_configured=["kill"] if killed else [],
                            faults_fired=["kill"] if killed and not never_fired else [],
                            infrastructure_error="dev server refused the connection" if infrastructure else None,
                        )
                    )
    return trials


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("reports") / "synthetic-1"
    write_report(directory, CONFIG, "synthetic-1", synthetic_trials(), STARTED, FINISHED)
    return directory


def test_every_file_is_written_and_the_plots_are_real_pngs(report_dir: Path) -> None:
    for name in ("report.md", "results.json", "trials.jsonl"):
        assert (report_dir / name).is_file(), name
    plots = sorted(report_dir.glob("*.png"))
    assert [p.name for p in plots] == ["pass_hat_k.png", "success_by_fault.png", "tokens.png", "wall_time.png"]
    for plot in plots:
        content = plot.read_bytes()
        assert content.startswith(PNG_MAGIC), plot.name
        assert len(content) > 10_000, plot.name


def test_trials_jsonl_round_trips_to_the_same_records(report_dir: Path) -> None:
    lines = (report_dir / "trials.jsonl").read_text(encoding="utf-8").splitlines()
    assert [TrialRecord.model_validate_json(line) for line in lines] == synthetic_trials()


def test_report_md_has_every_section_and_embeds_the_plots(report_dir: Path) -> None:
    report = (report_dir / "report.md").read_text(encoding="utf-8")
    for heading in (
        "## Method",
        "## Configuration",
        "### Reliability per runtime and scenario",
        "### Safety and cost per runtime and scenario",
        "### Per fault kind",
        "### Per task",
        "### Invariants over the durable trials",
        "### Invalid trials",
        "### Infrastructure failures",
        "## Plots",
        "## Threats to validity",
        "## Provenance",
    ):
        assert heading in report, heading
    for plot in ("pass_hat_k.png", "success_by_fault.png", "wall_time.png", "tokens.png"):
        assert f"]({plot})" in report
    assert "SIGKILL of the process at after_effect of step 2" in report
    assert "seed: 7" in report  # the configuration, as YAML
    assert "the kill at after_effect never fired" in report
    assert "dev server refused the connection" in report
    assert "Every figure in this report comes from `trials.jsonl`" in report


def test_report_md_lists_the_invariant_violations_of_the_durable_trials(tmp_path: Path) -> None:
    """Each violation a durable trial's check found, with its trial, and each trial not checked."""
    trials = synthetic_trials()
    durable = [trial.trial_id for trial in trials if trial.runtime == "durable"]
    found = "commit-verified: step 2 committed write_file(...) though it failed (ledger seq 9; ledger seq 8)"
    updates = {trial_id: {"invariant_violations": []} for trial_id in durable}
    updates[durable[0]] = {"invariant_violations": [found]}
    updates[durable[1]] = {"invariant_violations": None, "invariants_unchecked": "the server has no workflow x"}
    trials = [trial.model_copy(update=updates.get(trial.trial_id, {})) for trial in trials]
    write_report(tmp_path / "r", CONFIG, "synthetic-1", trials, STARTED, FINISHED)

    report = (tmp_path / "r" / "report.md").read_text(encoding="utf-8")
    section = report.split("### Invariants over the durable trials")[1].split("\n### ")[0]
    assert f"{len(durable) - 1} durable trials checked over their ledger and Temporal history" in section
    first = next(trial for trial in trials if trial.trial_id == durable[0])
    assert f"| {first.trial_id} | {first.task_id} | {first.scenario} | {first.trial_index} | {found} |" in section
    assert f"Not checked: `{durable[1]}`: the server has no workflow x" in section
    results = json.loads((tmp_path / "r" / "results.json").read_text())
    assert results["results"]["invariants_checked"] == len(durable) - 1


def test_report_md_shows_the_numbers_results_json_holds(report_dir: Path) -> None:
    report = (report_dir / "report.md").read_text(encoding="utf-8")
    results = json.loads((report_dir / "results.json").read_text(encoding="utf-8"))["results"]
    arms = {(arm["scenario"], arm["runtime"]): arm for arm in results["arms"]}

    durable_kill = arms["kill-after-effect", "durable"]
    # 5 of 6 valid trials: the infrastructure failure counts as a failure.
    assert durable_kill["success"]["successes"] == 5
    row = row_of(report, "| kill-after-effect | durable |")
    assert f"| {durable_kill['success']['rate']:.2f} |" in row
    assert "| 0.83 |" in row
    # pass^3: (C(2,3)/C(3,3) + C(3,3)/C(3,3)) / 2 = 0.5.
    assert durable_kill["pass_hat"][2]["value"] == 0.5
    assert row.endswith("| 0.50 |")

    baseline_kill = arms["kill-after-effect", "baseline"]
    assert (baseline_kill["trials"], baseline_kill["invalid_trials"]) == (6, 1)
    assert baseline_kill["success"]["successes"] == 2
    row = row_of(report, "| kill-after-effect | baseline |")
    assert "| 5/6 |" in row
    # bugfix-median has 2 valid trials, the other task 3: a mean over tasks of unequal n is not
    # pass^k, so none is given, and the report says why instead of a number.
    assert baseline_kill["pass_hat"] == []
    assert baseline_kill["pass_hat_withheld"] == "n differs per task (2..3)"
    assert row.endswith("| n differs per task | n differs per task | n differs per task |")


def test_render_summary_shows_the_tables(report_dir: Path) -> None:
    summary = render_summary(report_dir)
    assert "Per runtime and scenario" in summary
    assert "Per fault kind" in summary
    assert "Invalid trials: 1" in summary
    assert "infrastructure failures: 1" in summary
    baseline_kill = next(line for line in summary.splitlines() if line.startswith("kill-after-effect  baseline"))
    assert "5/6" in baseline_kill and "0.40" in baseline_kill
    assert max(len(line) for line in summary.splitlines()) <= 120
    assert len(summary.splitlines()) <= 40


def test_latest_report_is_the_last_written(report_dir: Path, tmp_path: Path) -> None:
    assert latest_report(tmp_path) is None
    older, newer = tmp_path / "a-older", tmp_path / "b-newer"
    for directory, moment in ((newer, 2_000_000_000), (older, 1_000_000_000)):
        directory.mkdir()
        (directory / "results.json").write_bytes((report_dir / "results.json").read_bytes())
        os.utime(directory / "results.json", (moment, moment))
    assert latest_report(tmp_path) == newer


def test_a_report_without_trials_still_says_what_was_expected(tmp_path: Path) -> None:
    write_report(tmp_path, CONFIG, "synthetic-empty", [], STARTED, FINISHED)
    report = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert "| none | durable | 0/0 (expected 6) | — |" in report
    assert all((tmp_path / name).read_bytes().startswith(PNG_MAGIC) for name in ("pass_hat_k.png", "tokens.png"))
    assert "(no trials recorded)" in render_summary(tmp_path)


def row_of(report: str, prefix: str) -> str:
    """The first table row of the Results that starts with `prefix`: the reliability table comes
    first there (the arms' comparison, above the Results, has rows that start alike)."""
    return next(line for line in report.split("\n## Results\n")[1].splitlines() if line.startswith(prefix))


def test_an_experiment_where_every_trial_fails_still_gets_its_plots(tmp_path: Path) -> None:
    # Five trials per arm, all failed: computed, the Wilson interval's low end of 0 of 5 is
    # 2.8e-17, and matplotlib refuses the error bar of -2.8e-17 that made.
    config = CONFIG.model_copy(update={"trials": 5, "tasks": ["bugfix-median"], "scenarios": CONFIG.scenarios[:1]})
    failed = [
        TrialRecord(
            experiment_id="all-failed",
            trial_id=f"{runtime}-{index}",
            task_id="bugfix-median",
            runtime=runtime,
            scenario="none",
            fault_kind=FaultKind.NONE,
            trial_index=index,
            seed=index,
            success=False,
        )
        for runtime in config.runtimes
        for index in range(5)
    ]
    directory = tmp_path / "all-failed"
    write_report(directory, config, "all-failed", failed, STARTED, FINISHED)
    assert (directory / "success_by_fault.png").read_bytes().startswith(PNG_MAGIC)


def test_rewrite_draws_the_report_again_from_the_raw_files(report_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "synthetic-1"
    copy.mkdir()
    for name in ("results.json", "trials.jsonl"):
        (copy / name).write_bytes((report_dir / name).read_bytes())
    assert rewrite_report(copy) == copy / "report.md"
    assert (copy / "report.md").read_text() == (report_dir / "report.md").read_text()
    assert (copy / "pass_hat_k.png").read_bytes().startswith(PNG_MAGIC)
    assert json.loads((copy / "results.json").read_text()) == json.loads((report_dir / "results.json").read_text())


def test_rewrite_drops_a_parts_stop_once_every_trial_is_in(tmp_path: Path) -> None:
    # A part cut short wrote "stopped early"; the parts after it ran the rest, and the report
    # drawn again over all the trials is no longer stopped early (but is while one is missing).
    planned = {
        (s.task.spec.id, s.runtime, s.scenario.name, s.index): s.trial_id for s in plan_trials(CONFIG, "synthetic-1")
    }
    trials = [
        trial.model_copy(
            update={"trial_id": planned[(trial.task_id, trial.runtime, trial.scenario, trial.trial_index)]}
        )
        for trial in synthetic_trials()
    ]
    directory = tmp_path / "synthetic-1"
    stop = f"cut short before it wrote its report; 5 of {len(trials)} trials ran"
    write_report(directory, CONFIG, "synthetic-1", trials[:5], STARTED, FINISHED, stopped_early=stop)
    for recorded, stopped in ((trials[:-1], True), (trials, False)):
        (directory / "trials.jsonl").write_text("".join(t.model_dump_json() + "\n" for t in recorded))
        rewrite_report(directory)
        assert ("**Stopped early**" in (directory / "report.md").read_text()) is stopped
        assert bool(json.loads((directory / "results.json").read_text())["stopped_early"]) is stopped


def test_rewrite_refuses_a_trials_file_that_is_not_one(report_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "broken"
    copy.mkdir()
    (copy / "results.json").write_bytes((report_dir / "results.json").read_bytes())
    (copy / "trials.jsonl").write_text('{"not": "a trial"}\n')
    with pytest.raises(ReportError, match="not a trials file"):
        rewrite_report(copy)
