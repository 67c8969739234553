"""The embedded dev server is shared by the commands that use it and outlives every one of them
(starter/embedded_server.py): two runs at once no longer lose their server when the first ends."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from lab.processes.temporal_server import DevServer, DevServerOptions, is_listening
from settings import PROJECT_ROOT
from starter.embedded_server import ServerRecord, shared_embedded_server
from tests.conftest import free_port
from tests.test_cli import cli_env, wait_closed
from tests.test_watch import lines_until, sigint_as_at_a_terminal


def _listening(port: int) -> bool:
    return is_listening("127.0.0.1", port)


async def test_the_server_outlives_the_command_that_started_it_while_another_uses_it(tmp_path: Path) -> None:
    port = free_port()
    address, directory = f"localhost:{port}", tmp_path / "embedded-server"
    first = shared_embedded_server(directory, address, None, keep_server=False)
    started = await first.__aenter__()
    assert started.started_here and started.record is not None and _listening(port)
    async with shared_embedded_server(directory, address, None, keep_server=False) as attached:
        assert not attached.started_here and attached.record == started.record
        await first.__aexit__(None, None, None)
        # The command that started it has ended; the other still has its server.
        assert not started.stopped and _listening(port)
    assert attached.stopped and not _listening(port)
    assert not (directory / "server.json").exists()


async def test_a_lone_command_stops_the_server_it_started(tmp_path: Path) -> None:
    port = free_port()
    async with shared_embedded_server(tmp_path, f"localhost:{port}", None, keep_server=False) as embedded:
        assert _listening(port)
    assert embedded.stopped and not _listening(port)


async def test_a_kept_server_is_stopped_by_no_command(tmp_path: Path) -> None:
    port = free_port()
    async with shared_embedded_server(tmp_path, f"localhost:{port}", None, keep_server=True) as kept:
        pass
    try:
        assert kept.record is not None and kept.record.kept and not kept.stopped and _listening(port)
        # A later command that does not ask to keep it leaves it running too.
        async with shared_embedded_server(tmp_path, f"localhost:{port}", None, keep_server=False) as later:
            assert later.record == kept.record
        assert not later.stopped and _listening(port)
    finally:
        os.kill(kept.record.pid, signal.SIGTERM)
    wait_closed(port)


async def test_a_server_something_else_started_is_never_stopped(tmp_path: Path) -> None:
    port = free_port()
    theirs = DevServer(DevServerOptions(port=port, ui_port=None, database=tmp_path / "theirs.sqlite"))
    await theirs.start()
    try:
        async with shared_embedded_server(tmp_path / "ours", f"localhost:{port}", None, keep_server=False) as used:
            assert used.record is None and not used.started_here
        assert not used.stopped and _listening(port)
    finally:
        await theirs.stop()


async def test_a_record_of_a_process_that_is_not_the_server_is_not_believed(tmp_path: Path) -> None:
    """A pid the kernel gave to another process since (here: this test's own) is never signalled."""
    port = free_port()
    address = f"localhost:{port}"
    (tmp_path / "server.json").write_text(ServerRecord(pid=os.getpid(), address=address).model_dump_json())
    async with shared_embedded_server(tmp_path, address, None, keep_server=False) as embedded:
        assert embedded.started_here and embedded.record is not None and embedded.record.pid != os.getpid()
    assert embedded.stopped and not _listening(port)


def test_three_runs_at_once_all_complete(tmp_path: Path) -> None:
    """Three `starter run` processes started together on one data directory and no server: the
    first to start brings the embedded server up, every run completes, and the last to end
    stops it, whichever that is."""
    port = free_port()
    env = cli_env(AGENT_LAB_DEV_PORT=str(port), AGENT_LAB_UI_PORT=str(free_port()), AGENT_LAB_DATA=str(tmp_path))
    outputs = _all_complete(_THREE_RUNS, env)
    # Each durable run says what became of the server: stopped by it, or left to a run still
    # using it (which one ends last depends on the machine); in the end it is gone.
    for output in outputs[:2]:
        assert "the embedded dev server has stopped" in output or "keeps running for the other runs" in output
    wait_closed(port)
    assert not (tmp_path / "embedded-server" / "server.json").exists()


async def test_three_runs_at_once_on_a_server_of_the_users_all_complete_and_leave_it_running(tmp_path: Path) -> None:
    """With TEMPORAL_ADDRESS naming a server the user runs, the runs share it, start no server
    of their own and stop none."""
    port = free_port()
    theirs = DevServer(DevServerOptions(port=port, ui_port=None, database=tmp_path / "theirs.sqlite"))
    await theirs.start()
    try:
        env = cli_env(TEMPORAL_ADDRESS=f"localhost:{port}", AGENT_LAB_DATA=str(tmp_path / "data"))
        outputs = await asyncio.to_thread(_all_complete, _THREE_RUNS, env)
        for output in outputs:
            assert "embedded dev server" not in output, output
        assert _listening(port)
        assert not (tmp_path / "data" / "embedded-server" / "server.json").exists()
    finally:
        await theirs.stop()


_THREE_RUNS = [
    ("--runtime", "durable", "--task", "bugfix-median"),
    ("--runtime", "durable", "--task", "rename-refactor"),
    ("--runtime", "baseline", "--task", "bugfix-median"),
]


def _all_complete(runs: list[tuple[str, ...]], env: dict[str, str]) -> list[str]:
    """Start a `starter run` process for each of `runs` together; each one completes."""
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "starter", "run", *args],
            cwd=PROJECT_ROOT,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for args in runs
    ]
    outputs = [process.communicate(timeout=300)[0] for process in started]
    for process, output in zip(started, outputs, strict=True):
        assert process.returncode == 0, output
        assert "ok: COMPLETED" in output and "Traceback" not in output, output
    return outputs


def test_ctrl_c_of_a_run_that_keeps_its_server_says_how_to_stop_it(tmp_path: Path) -> None:
    port = free_port()
    env = cli_env(AGENT_LAB_DEV_PORT=str(port), AGENT_LAB_UI_PORT=str(free_port()), AGENT_LAB_DATA=str(tmp_path))
    running = subprocess.Popen(
        [sys.executable, "-m", "starter", "run", "--task", "bugfix-median", "--no-worker", "--keep-server"],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=sigint_as_at_a_terminal,
    )
    try:
        said = "".join(lines_until(running, "waiting for a worker"))
        running.send_signal(signal.SIGINT)
        rest, _ = running.communicate(timeout=60)
    finally:
        if running.poll() is None:
            running.kill()
            running.wait(timeout=30)
    assert running.returncode == 130, said + rest
    kept = re.search(r"keeps running, pid (\d+); stop it with `kill (\d+)`", rest)
    assert kept and kept[1] == kept[2], rest
    try:
        assert _listening(port)
    finally:
        os.kill(int(kept[1]), signal.SIGTERM)
    wait_closed(port)
