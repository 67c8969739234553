"""An experiment cut short (here: SIGKILL) is resumed with `experiment run --resume DIR`: its
finished trials are kept as they were, the others run once each, under identities of their own,
and the report covers them all and says it was resumed. A changed config or code is refused in
one line unless a person allows the change of code."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from contracts.errors import ConfigError
from experiments.config import ExperimentConfig
from experiments.provenance import Provenance, config_digest
from experiments.record import RECORD_DIR, TEMPORAL_DB
from experiments.resume import ExperimentStart, Part, finished_trials, prepare_cluster, resumed_part
from experiments.trial_record import TrialRecord
from settings import PROJECT_ROOT
from tests.test_cli import assert_one_line_error, cli_env

CONFIG = {
    "name": "cut-short",
    "description": "Two tasks, both runtimes, two trials each, one at a time.",
    "tasks": ["rename-refactor", "refund-duplicate-charge"],
    "runtimes": ["durable", "baseline"],
    "trials": 2,
    "provider": {"kind": "scripted"},
    "concurrency": 1,
}


def _provenance(config: ExperimentConfig, commit: str = "a" * 40, uncommitted: list[str] | None = None) -> Provenance:
    return Provenance(
        commit=commit,
        uncommitted=uncommitted or [],
        python="3.11.7",
        temporalio="1.35.0",
        temporal_cli="temporal version 1.9.1",
        cpu="cpu",
        cores=2,
        config_sha256=config_digest(config),
    )


def _start(config: ExperimentConfig, first: Provenance) -> ExperimentStart:
    return ExperimentStart(
        experiment_id="x-1", config=config, parts=[Part(started=datetime.now(UTC), provenance=first)]
    )


def _record(trial_id: str) -> TrialRecord:
    return TrialRecord(
        experiment_id="x-1",
        trial_id=trial_id,
        task_id="rename-refactor",
        runtime="durable",
        scenario="none",
        fault_kind="none",
        trial_index=0,
        seed=0,
    )


def test_a_resume_is_refused_when_the_config_or_the_code_changed() -> None:
    config = ExperimentConfig.model_validate(CONFIG)
    start = _start(config, _provenance(config))
    same = resumed_part(start, config, _provenance(config), allow_code_change=False, finished=3)
    assert same.trials_before == 3 and not same.code_changed
    other = config.model_copy(update={"trials": 3})
    with pytest.raises(ConfigError, match="the config differs from the one experiment x-1 started with"):
        resumed_part(start, other, _provenance(config), allow_code_change=True, finished=3)
    moved = _provenance(config, commit="b" * 40)
    with pytest.raises(ConfigError, match=f"ran commit {'a' * 12}, this checkout is {'b' * 12}"):
        resumed_part(start, None, moved, allow_code_change=False, finished=3)
    dirty = _provenance(config, uncommitted=["agent/x.py"])
    with pytest.raises(ConfigError, match=r"this checkout has uncommitted changes \(agent/x.py\)"):
        resumed_part(start, None, dirty, allow_code_change=False, finished=3)
    allowed = resumed_part(start, None, moved, allow_code_change=True, finished=3)
    assert allowed.code_changed and allowed.provenance.commit == "b" * 40


def test_a_last_line_cut_short_is_no_trial_and_a_changed_one_is_refused(tmp_path: Path) -> None:
    whole = _record("x-1-a").model_dump_json() + "\n"
    (tmp_path / "trials.jsonl").write_text(whole + _record("x-1-b").model_dump_json()[:40])
    assert [record.trial_id for record in finished_trials(tmp_path)] == ["x-1-a"]
    assert (tmp_path / "trials.jsonl").read_text() == whole  # the torn line is gone: that trial runs again
    (tmp_path / "trials.jsonl").write_text("not a record\n" + whole)
    with pytest.raises(ConfigError, match=r"trials\.jsonl:1: not a trial record"):
        finished_trials(tmp_path)


def test_a_resumed_part_continues_the_databases_a_killed_part_left_or_the_record(tmp_path: Path) -> None:
    scratch = tmp_path / "scratch"
    (scratch / "cluster").mkdir(parents=True)
    (scratch / "cluster" / TEMPORAL_DB).write_text("killed part's")
    (scratch / "faults.json").write_text("{}")
    (scratch / "x-1-a1").mkdir()
    prepare_cluster(tmp_path, scratch)
    assert sorted(path.name for path in scratch.iterdir()) == ["cluster"]
    assert (scratch / "cluster" / TEMPORAL_DB).read_text() == "killed part's"

    (tmp_path / "scratch2").mkdir()
    (tmp_path / RECORD_DIR).mkdir()
    (tmp_path / RECORD_DIR / TEMPORAL_DB).write_text("recorded")
    prepare_cluster(tmp_path, tmp_path / "scratch2")
    assert (tmp_path / "scratch2" / "cluster" / TEMPORAL_DB).read_text() == "recorded"


def _starter(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "starter", "experiment", "run", *args],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=400,
    )


# Three experiment processes, each starting a cluster: two minutes on 2 cores, in the slow lane.
@pytest.mark.slow
@pytest.mark.timeout(600)
def test_an_experiment_killed_midway_is_resumed_with_its_finished_trials_kept(tmp_path: Path) -> None:
    config_path = tmp_path / "cut-short.yaml"
    config_path.write_text(yaml.safe_dump(CONFIG))
    env = cli_env(AGENT_LAB_DATA=str(tmp_path / "data"))
    running = subprocess.Popen(
        [sys.executable, "-m", "starter", "experiment", "run", "--config", str(config_path)],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    reports = tmp_path / "data" / "reports"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and running.poll() is None:
            lines = [path.read_text().count("\n") for path in reports.glob("*/trials.jsonl")]
            if lines and lines[0] >= 2:
                break
            time.sleep(0.2)
        assert running.poll() is None, "the experiment ended before it could be cut short"
    finally:
        os.kill(running.pid, signal.SIGKILL)  # no clean-up of any kind
        running.wait(timeout=30)
    (directory,) = reports.iterdir()
    before = (directory / "trials.jsonl").read_text().splitlines(keepends=True)
    kept = [line for line in before if line.endswith("\n")]
    assert 2 <= len(kept) < 8 and not (directory / "report.md").exists()

    # Its report can be read before the rest is run: from what it started with and recorded.
    report_now = subprocess.run(
        [sys.executable, "-m", "starter", "experiment", "report", "--run-id", str(directory)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert report_now.returncode == 0 and "cut short before it wrote its report" in report_now.stdout, report_now
    cut_short = (directory / "report.md").read_text()
    assert f"{len(kept)} of 8 trials ran" in cut_short and f"--resume {directory}" in cut_short

    other = tmp_path / "other.yaml"
    other.write_text(yaml.safe_dump({**CONFIG, "trials": 3}))
    assert_one_line_error(_starter(env, "--resume", str(directory), "--config", str(other)), "the config differs")

    # A developer's tree may have changes not committed: allowed here, and named in the report.
    resumed = _starter(env, "--resume", str(directory), "--config", str(config_path), "--allow-commit-change")
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert f"resuming after {len(kept)} finished trials" in resumed.stdout
    after = (directory / "trials.jsonl").read_text().splitlines(keepends=True)
    assert after[: len(kept)] == kept  # the finished trials, as they were
    records = [TrialRecord.model_validate_json(line) for line in after]
    assert len(records) == 8 and len({record.trial_id for record in records}) == 8  # each trial once
    assert all(record.success for record in records), [r.reason for r in records if not r.success]
    # Those run in the resumed part ran under identities of their own.
    assert all("-r1" in run_id for record in records[len(kept) :] for run_id in record.run_ids)
    report = (directory / "report.md").read_text()
    assert "**Resumed**: run in 2 parts" in report and f"after {len(kept)} finished trials" in report
    assert report.count("4/4") >= 2  # each arm: two tasks, two trials each
    assert (directory / RECORD_DIR / TEMPORAL_DB).is_file() and not (directory / "scratch").exists()
    # A finished experiment resumed again runs nothing and says so.
    again = _starter(env, "--resume", str(directory), "--allow-commit-change")
    assert (
        again.returncode == 0
        and "experiment cut-short" in again.stdout
        and ": 0 trials, resuming after 8" in (again.stdout)
    ), again.stdout
