"""`starter watch RUN` follows a durable run started in another process to its end, serving it
with a worker of its own; `run` says when no worker answers for its run, and how to watch it."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from settings import PROJECT_ROOT
from tests.conftest import free_port
from tests.test_cli import assert_one_line_error, cli_env, starter


def lines_until(process: subprocess.Popen[str], marker: str) -> list[str]:
    assert process.stdout is not None
    lines: list[str] = []
    for line in process.stdout:
        lines.append(line)
        if marker in line:
            return lines
    raise AssertionError(f"{marker!r} never printed: {''.join(lines)}")


def sigint_as_at_a_terminal() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


# Three processes, each loading the lab, and a run: minutes on a loaded 2-core machine.
@pytest.mark.timeout(400)
async def test_watch_serves_and_follows_a_run_another_process_started(dev_env: WorkflowEnvironment) -> None:
    env = cli_env(TEMPORAL_ADDRESS=dev_env.client.service_client.config.target_host)
    submitted = subprocess.Popen(
        [sys.executable, "-m", "starter", "run", "--task", "bugfix-median", "--no-worker"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        said = "".join(lines_until(submitted, "no worker has answered for the run"))
        run_id = re.search(r"> durable run (\S+) on task bugfix-median", said)
        assert run_id, said
        assert f"starter watch {run_id.group(1)}" in said

        watched = starter("watch", run_id.group(1), env=env, timeout=180)

        assert watched.returncode == 0, watched.stdout + watched.stderr
        assert f"watching run {run_id.group(1)} (running)" in watched.stdout
        assert "step  1" in watched.stdout and "ok: COMPLETED" in watched.stdout
        assert "end state judged:" in watched.stdout
        # The process that submitted it sees the same end, and that a worker came.
        rest, _ = submitted.communicate(timeout=120)
        assert submitted.returncode == 0, rest
        assert "a worker answers for the run again" in rest and "ok: COMPLETED" in rest

        # A finished run: its steps and outcome, no worker needed.
        again = starter("watch", run_id.group(1), "--no-worker", env=env)
        assert again.returncode == 0, again.stdout + again.stderr
        assert "(completed)" in again.stdout and "step  1" in again.stdout and "ok: COMPLETED" in again.stdout
    finally:
        if submitted.poll() is None:
            os.killpg(submitted.pid, signal.SIGTERM)
            submitted.wait(timeout=30)


async def test_watching_a_run_the_server_does_not_have_is_one_line(dev_env: WorkflowEnvironment) -> None:
    env = cli_env(TEMPORAL_ADDRESS=dev_env.client.service_client.config.target_host)
    result = starter("watch", "no-such-run", env=env)
    assert_one_line_error(result, "no run 'no-such-run' on this server")


async def test_ctrl_c_of_run_says_the_run_goes_on_and_how_to_watch_it(dev_env: WorkflowEnvironment) -> None:
    env = cli_env(TEMPORAL_ADDRESS=dev_env.client.service_client.config.target_host)
    running = subprocess.Popen(
        [sys.executable, "-m", "starter", "run", "--task", "bugfix-median", "--no-worker"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        # As a terminal's Ctrl-C finds it: a command started in the background of a shell
        # without job control (`bash -c '... &'`) inherits SIGINT ignored, and Python then
        # keeps ignoring it, so a test run from such a shell would send its SIGINT to nothing.
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        said = "".join(lines_until(running, "waiting for a worker"))
        run_id = re.search(r"> durable run (\S+) on task", said)
        assert run_id, said
        running.send_signal(signal.SIGINT)
        rest, _ = running.communicate(timeout=60)
    finally:
        if running.poll() is None:
            running.kill()
            running.wait(timeout=30)
    assert running.returncode == 130, rest
    assert (
        "stopped following the run: it goes on once a worker serves it" in rest
        and f"starter watch {run_id.group(1)}" in rest
    ), rest
    assert "Traceback" not in rest
    # It does: the server still has it, running.
    described = await dev_env.client.get_workflow_handle(run_id.group(1)).describe()
    assert described.status is not None and described.status.name == "RUNNING"
    await dev_env.client.get_workflow_handle(run_id.group(1)).terminate("the test is done with it")


@pytest.mark.timeout(400)
def test_a_run_interrupted_on_the_embedded_server_is_watched_to_its_end(tmp_path: Path) -> None:
    """As a newcomer meets it: Ctrl-C stops the embedded server with the run's starter; `watch`
    starts it again on the same history file, serves the run and follows it to its end."""
    env = cli_env(AGENT_LAB_DEV_PORT=str(free_port()), AGENT_LAB_UI_PORT=str(free_port()), AGENT_LAB_DATA=str(tmp_path))
    running = subprocess.Popen(
        [sys.executable, "-m", "starter", "run", "--task", "bugfix-median", "--no-worker"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        lines_until(running, "waiting for a worker")
        running.send_signal(signal.SIGINT)
        rest, _ = running.communicate(timeout=60)
    finally:
        if running.poll() is None:
            running.kill()
            running.wait(timeout=30)
    assert running.returncode == 130 and "the embedded dev server has stopped" in rest, rest
    command = re.search(r"`uv run python -m starter (watch [\w.-]+)`", rest)
    assert command, rest

    watched = starter(*command.group(1).split(), env=env, timeout=300)

    assert watched.returncode == 0, watched.stdout + watched.stderr
    assert "(running)" in watched.stdout and "step  1" in watched.stdout and "ok: COMPLETED" in watched.stdout
    assert "the embedded dev server has stopped" in watched.stdout
