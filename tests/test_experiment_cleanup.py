"""An experiment stopped hard (SIGKILL skips every clean-up) leaves nothing running behind it:
its dev server, operations service and workers die with it. One that fails or is interrupted
also leaves no scratch files in its report directory, and keeps the trials it recorded."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from experiments import harness
from experiments.config_loader import load_config
from experiments.runner import reports_dir, run_experiment
from experiments.trial_record import TrialRecord
from settings import PROJECT_ROOT

pytestmark = pytest.mark.timeout(120)


def processes_using(data: Path) -> dict[int, str]:
    """Live processes whose environment points at this data directory (zombies aside), by pid."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if f"AGENT_LAB_DATA={data}".encode() not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z":
                continue
            found[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
    return found


def test_a_killed_experiment_leaves_no_process_behind(tmp_path: Path) -> None:
    config = tmp_path / "small.yaml"
    config.write_text(
        yaml.safe_dump(
            {
                "name": "small",
                "tasks": ["long-horizon"],
                "runtimes": ["durable"],
                "trials": 2,
                "provider": {"kind": "scripted"},
            }
        )
    )
    data = tmp_path / "data"
    runner = subprocess.Popen(
        [sys.executable, "-m", "starter", "experiment", "run", "--config", str(config)],
        cwd=PROJECT_ROOT,
        env={**os.environ, "AGENT_LAB_DATA": str(data)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        # Wait until a trial's workspace exists: a worker prepared it, so the workers are
        # connected and would poll on (and wait on a server that comes back) if left behind.
        workspaces = data / "workspaces"
        while not (workspaces.is_dir() and any(workspaces.iterdir())):
            assert runner.poll() is None, "the experiment ended before a trial started"
            assert time.monotonic() < deadline, "no trial started within a minute"
            time.sleep(0.2)
        assert len(processes_using(data)) >= 3  # runner, dev server, workers
    finally:
        runner.send_signal(signal.SIGKILL)
        runner.wait()

    deadline = time.monotonic() + 20
    while (left := processes_using(data)) and time.monotonic() < deadline:
        time.sleep(0.2)
    for pid in left:  # the test fails, but leaves nothing running either
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    assert list(left.values()) == []


def _sigint_as_in_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def small_config(path: Path, name: str, trials: int) -> Path:
    path.write_text(
        yaml.safe_dump(
            {
                "name": name,
                "tasks": ["rename-refactor"],
                "runtimes": ["durable"],
                "trials": trials,
                "provider": {"kind": "scripted"},
            }
        )
    )
    return path


class _ClusterThatCannotStart:
    def __init__(self, directory: Path) -> None:
        directory.mkdir(parents=True)
        (directory / "temporal.sqlite").write_bytes(b"half a database")
        (directory / "dev-server.log").write_text("bind: address already in use\n")

    async def __aenter__(self) -> None:
        raise RuntimeError("the dev server did not start")

    async def __aexit__(self, *exc_info: object) -> None:
        return None


async def test_an_experiment_that_fails_keeps_its_logs_and_no_scratch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(harness, "LabCluster", _ClusterThatCannotStart)
    with pytest.raises(RuntimeError, match="did not start"):
        await run_experiment(load_config(small_config(tmp_path / "failing.yaml", "failing", trials=1)))

    (directory,) = reports_dir().glob("failing-*")
    # What it started with (for a resume), and the logs; the cluster's unreadable database is
    # not kept as a record.
    assert [path.relative_to(directory).as_posix() for path in sorted(directory.rglob("*"))] == [
        "experiment.json",
        "logs",
        "logs/cluster",
        "logs/cluster/dev-server.log",
    ]
    assert (directory / "logs" / "cluster" / "dev-server.log").read_text() == "bind: address already in use\n"


def _sigint_ignored_as_in_the_background() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@pytest.mark.parametrize(
    ("stop", "started"),
    [(signal.SIGINT, _sigint_as_in_a_terminal), (signal.SIGTERM, _sigint_ignored_as_in_the_background)],
    ids=["ctrl-c-in-a-terminal", "kill-in-the-background"],
)
def test_an_interrupted_experiment_keeps_its_trials_and_drops_its_scratch(
    tmp_path: Path, stop: signal.Signals, started: Callable[[], None]
) -> None:
    """Ctrl-C, or `kill PID` of one started in the background (where a shell leaves SIGINT
    ignored): the trials recorded so far stay; the cluster's files go, with the cluster."""
    config = small_config(tmp_path / "small.yaml", "small", trials=3)
    data = tmp_path / "data"
    runner = subprocess.Popen(
        [sys.executable, "-m", "starter", "experiment", "run", "--config", str(config), "--concurrency", "1"],
        cwd=PROJECT_ROOT,
        env={**os.environ, "AGENT_LAB_DATA": str(data)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        # As from a terminal (a suite started in the background, `pytest &` from a script,
        # inherits SIGINT ignored, and Python then never raises KeyboardInterrupt), or as in
        # the background.
        preexec_fn=started,
    )
    try:
        deadline = time.monotonic() + 90
        while not (recorded := list(data.glob("reports/small-*/trials.jsonl"))):
            assert runner.poll() is None, "the experiment ended before a trial finished"
            assert time.monotonic() < deadline, "no trial finished within 90 s"
            time.sleep(0.2)
        directory = recorded[0].parent
        assert (directory / "scratch").is_dir()
        runner.send_signal(stop)
        _, stderr = runner.communicate(timeout=60)
    finally:
        if runner.poll() is None:
            runner.kill()
            runner.wait()

    assert runner.returncode == 130, stderr
    assert "Traceback" not in stderr and stderr.splitlines()[-1] == "interrupted", stderr
    assert not (directory / "scratch").exists()
    kept = (directory / "trials.jsonl").read_text().splitlines()
    assert kept and all(TrialRecord.model_validate_json(line).success for line in kept)
    assert processes_using(data) == {}
