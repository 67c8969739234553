"""The embedded dev server counts as started once its frontend is healthy, not once it listens:
on a loaded machine the gap is seconds, and a client connecting in it was refused ("Frontend
is not healthy yet"), which failed a CLI test and a benchmark in CI."""

from __future__ import annotations

import socket
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio.service import ConnectConfig

from contracts.errors import StarterError
from lab import temporal_server
from lab.temporal_server import DevServer, DevServerOptions
from worker import connect


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class _Frontend:
    """A frontend that refuses connections, then answers unhealthy, then healthy."""

    def __init__(self, refusals: int, unhealthy: int) -> None:
        self.refusals, self.unhealthy = refusals, unhealthy
        self.connects = self.checks = 0

    async def connect(self, config: ConnectConfig) -> _Frontend:
        self.connects += 1
        if self.connects <= self.refusals:
            raise RuntimeError("Failed client connect: Server connection error: Frontend is not healthy yet")
        return self

    async def check_health(self, *, timeout: timedelta) -> bool:
        self.checks += 1
        return self.checks > self.unhealthy


class _Running:
    """A server process that runs until it is stopped."""

    returncode: int | None = None

    def poll(self) -> int | None:
        return self.returncode

    def terminate(self) -> None:
        self.returncode = -15

    def wait(self, timeout: float | None = None) -> int | None:
        return self.returncode


async def test_start_waits_until_the_frontend_says_it_is_healthy(monkeypatch: pytest.MonkeyPatch) -> None:
    frontend = _Frontend(refusals=2, unhealthy=2)
    monkeypatch.setattr(temporal_server.ServiceClient, "connect", frontend.connect)
    server = DevServer(DevServerOptions(port=1, ui_port=None))
    server._process = _Running()  # type: ignore[assignment]
    await server._wait_healthy(deadline=float("inf"), timeout_s=30)
    assert (frontend.connects, frontend.checks) == (3, 3)


async def test_a_server_that_never_becomes_healthy_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    frontend = _Frontend(refusals=10**6, unhealthy=0)
    monkeypatch.setattr(temporal_server.ServiceClient, "connect", frontend.connect)
    server = DevServer(DevServerOptions(port=1, ui_port=None))
    process = server._process = _Running()  # type: ignore[assignment]
    with pytest.raises(StarterError, match="not healthy within 30 s"):
        await server._wait_healthy(deadline=0.0, timeout_s=30)
    assert process.returncode == -15  # stopped, not left running


async def test_a_started_server_takes_a_client_at_once(tmp_path: Path) -> None:
    server = DevServer(DevServerOptions(port=_free_port(), ui_port=None, database=tmp_path / "dev.sqlite"))
    await server.start()
    try:
        client = await connect(server.address)
        assert await client.service_client.check_health()
    finally:
        await server.stop()
