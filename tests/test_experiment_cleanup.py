"""An experiment stopped hard (SIGKILL skips every clean-up) leaves nothing running behind it:
its dev server, operations service and workers die with it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

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
