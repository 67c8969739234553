"""`python -m starter experiment ...` on bad input: a line naming each problem (and the fix), exit
2, told before Temporal's SDK or matplotlib load; and `report --run-id` given an id or a path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from experiments.report import write_report
from settings import PROJECT_ROOT
from starter.cli import main
from tests.test_cli import assert_one_line_error, cli_env, starter
from tests.test_report import CONFIG, FINISHED, STARTED, synthetic_trials

HEAVY = ("temporalio", "matplotlib", "openai", "git", "rich")


def probe(*args: str) -> tuple[int, list[str], list[str]]:
    """Run the CLI in a fresh interpreter: its exit code, its stderr lines, and which heavy
    modules it had loaded by the time it answered."""
    script = (
        "import json, sys\n"
        "from starter.cli import main\n"
        f"code = main({list(args)!r})\n"
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r})), file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=PROJECT_ROOT, env=cli_env(), capture_output=True, text=True, timeout=60
    )
    *lines, loaded = done.stderr.strip().splitlines()
    return done.returncode, lines, json.loads(loaded)


def one_line_error(code: int, lines: list[str], *fragments: str) -> str:
    assert code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


BAD_CONFIGS = {
    "invalid-field": (yaml.safe_dump({"name": "x", "tasks": ["rename-refactor"], "runtimes": ["durable"]}), "trials"),
    "unknown-task": (
        yaml.safe_dump({"name": "x", "tasks": ["no-such-task"], "runtimes": ["durable"], "trials": 1}),
        "unknown task 'no-such-task'",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_a_bad_config_is_told_before_anything_heavy_loads(case: str, tmp_path: Path) -> None:
    text, fragment = BAD_CONFIGS[case]
    config = tmp_path / "bad.yaml"
    config.write_text(text)
    code, lines, loaded = probe("experiment", "run", "--config", str(config))
    one_line_error(code, lines, str(config), fragment)
    assert loaded == []


def test_a_yaml_syntax_error_shows_the_line_and_column_and_the_line_itself(tmp_path: Path) -> None:
    config = tmp_path / "bad.yaml"
    config.write_text("name: x\ntasks: [rename-refactor\ntrials: 1\n")
    code, lines, loaded = probe("experiment", "run", "--config", str(config))
    assert code == 2
    assert lines == [
        f"error: {config}: not valid YAML at line 3, column 7: expected ',' or ']', but got ':' "
        "(while parsing a flow sequence from line 2, column 8)",
        "  trials: 1",
        "        ^",
    ]
    assert loaded == []


def test_a_config_with_three_problems_names_each_on_its_own_line(tmp_path: Path) -> None:
    config = tmp_path / "three.yaml"
    broken = {"name": "x", "tasks": ["rename-refactor"], "runtimes": ["quantum"], "trials": 0}
    broken["budget"] = {"max_steps": 0}
    config.write_text(yaml.safe_dump(broken))
    result = starter("experiment", "run", "--config", str(config))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert result.stderr.splitlines() == [
        f"error: {config}: 3 problems:",
        "  runtimes[0]: Input should be 'durable', 'baseline', 'baseline-journal' or 'baseline+verifier'",
        "  trials: Input should be greater than or equal to 1",
        "  budget.max_steps: Input should be greater than 0",
    ]


def test_a_missing_config_names_the_shipped_ones() -> None:
    code, lines, loaded = probe("experiment", "run", "--config", "missing.yaml")
    one_line_error(code, lines, "missing.yaml: cannot read", "experiments/configs/quickstart.yaml")
    assert loaded == []


def test_a_config_that_runs_no_trial_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "none.yaml"
    only_verifier = {"name": "only-verifier", "runtimes": ["baseline+verifier"]}
    config.write_text(
        yaml.safe_dump(
            {
                "name": "x",
                "tasks": ["rename-refactor"],
                "runtimes": ["durable"],
                "trials": 1,
                "scenarios": [only_verifier],
            }
        )
    )
    env = cli_env(AGENT_LAB_DATA=str(tmp_path / "data"))
    assert_one_line_error(starter("experiment", "run", "--config", str(config), env=env), "no trial to run", "runtimes")
    assert not (tmp_path / "data" / "reports").exists()


@pytest.fixture
def report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A finished experiment's report under $AGENT_LAB_DATA/reports, the directory we run from."""
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path / "data"))
    monkeypatch.chdir(tmp_path)
    directory = tmp_path / "data" / "reports" / "synthetic-1"
    write_report(directory, CONFIG, "synthetic-1", synthetic_trials(), STARTED, FINISHED)
    return directory


@pytest.mark.parametrize(
    "run_id",
    ["synthetic-1", "synthetic-1/", "data/reports/synthetic-1", "data/reports/synthetic-1/", "ABSOLUTE", "ABSOLUTE/"],
)
def test_report_takes_an_id_or_the_path_of_its_directory(
    report: Path, run_id: str, capsys: pytest.CaptureFixture[str]
) -> None:
    run_id = run_id.replace("ABSOLUTE", str(report))
    assert main(["experiment", "report", "--run-id", run_id]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Experiment synthetic (synthetic-1)") and "kill-after-effect" in out


def test_report_rewrites_the_report_a_path_names(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (report / "report.md").unlink()
    assert main(["experiment", "report", "--run-id", "data/reports/synthetic-1/", "--rewrite"]) == 0
    assert (report / "report.md").is_file() and "rewrote" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("run_id", "problem", "fix"),
    [
        ("data/reports", "data/reports is not an experiment's report directory", "pass an experiment id from"),
        ("data/reports/synthetic-1/report.md", "report.md is not an experiment's report directory", "pass an"),
        ("data/reports/synthetic-2", "no experiment 'data/reports/synthetic-2'", "alone shows the latest"),
        ("synthetic-2", "no experiment 'synthetic-2'", "alone shows the latest"),
    ],
)
def test_report_of_something_else_is_one_line(
    report: Path, run_id: str, problem: str, fix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["experiment", "report", "--run-id", run_id]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    one_line_error(2, captured.err.strip().splitlines(), problem, fix)


def test_report_of_a_corrupt_results_file_is_one_line(report: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (report / "results.json").write_text("{")
    assert main(["experiment", "report", "--run-id", "synthetic-1"]) == 2
    one_line_error(2, capsys.readouterr().err.strip().splitlines(), "results.json: not a results file")
