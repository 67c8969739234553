"""A local model server that dies mid-experiment (a crash, the OOM killer) is the lab's failure,
not the agent's: the trial that saw it is an infrastructure failure, no further trial starts
(each would fail the same way), and the report covers the trials recorded before, saying it
stopped early."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest

from contracts.errors import InfrastructureError
from experiments.config import ExperimentConfig
from experiments.metrics.counting import counts_as_success
from experiments.runner import run_experiment
from experiments.trial_record import TrialRecord
from lab.models import llama_server

pytestmark = pytest.mark.timeout(180)


def test_a_server_that_exits_by_itself_is_told_with_how() -> None:
    process = subprocess.Popen([sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"])
    process.wait()
    llama_server._serving["http://127.0.0.1:1/v1"] = process
    try:
        why = llama_server.stopped_server("http://127.0.0.1:1/v1")
        assert why is not None and why.startswith("the local model server killed by SIGSEGV; see ")
        # A server that is none of this process's, or none at all: nothing to say.
        assert llama_server.stopped_server("http://127.0.0.1:2/v1") is None
        assert llama_server.stopped_server(None) is None
    finally:
        llama_server._serving.clear()

    running = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    llama_server._serving["http://127.0.0.1:3/v1"] = running
    try:
        assert llama_server.stopped_server("http://127.0.0.1:3/v1") is None
    finally:
        llama_server._serving.clear()
        running.send_signal(signal.SIGKILL)
        running.wait()


async def test_an_experiment_stops_at_the_trial_that_saw_the_server_go(
    data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checks: list[str | None] = []

    def gone_after_the_first_trial(base_url: str | None) -> str | None:
        checks.append(base_url)
        return "the local model server killed by SIGSEGV; see llama-server.log" if len(checks) == 1 else None

    monkeypatch.setattr(llama_server, "stopped_server", gone_after_the_first_trial)
    config = ExperimentConfig(name="gone", tasks=["bugfix-median"], runtimes=["baseline"], trials=3)
    with pytest.raises(InfrastructureError, match="experiment stopped: the local model server killed by SIGSEGV"):
        await run_experiment(config)

    [directory] = (data_dir / "reports").glob("gone-*")
    trials = [TrialRecord.model_validate_json(line) for line in (directory / "trials.jsonl").read_text().splitlines()]
    assert len(checks) == 1 and len(trials) == 1  # the other two never started
    assert (
        trials[0].infrastructure_error
        == "InfrastructureError: the local model server killed by SIGSEGV; see llama-server.log"
    )
    assert not counts_as_success(trials[0])  # a failure, shown apart as the lab's
    report = (directory / "report.md").read_text()
    assert "**Stopped early**: the local model server killed by SIGSEGV" in report and "1 of 3 trials ran" in report
    assert not (directory / "scratch").exists()
