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
from host.client import connect
from lab.processes import temporal_server
from lab.processes.temporal_server import DevServer, DevServerOptions


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


async def test_a_port_the_cli_picked_for_itself_and_lost_is_tried_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The CLI picks free ports for its HTTP API and metrics, and another process can take one
    before it binds it (seen at a soak's start): the server is started again, not given up on."""
    real, failed = temporal_server.temporal_cli(), tmp_path / "failed-once"
    taken = "failed listening for HTTP API on 127.0.0.1:40177: listen tcp 127.0.0.1:40177: bind: address already in use"
    cli = tmp_path / "temporal"
    cli.write_text(
        f'#!/bin/sh\n[ -e {failed} ] && exec {real} "$@"\ntouch {failed}\necho "Error: {taken}" >&2\nexit 1\n'
    )
    cli.chmod(0o755)
    monkeypatch.setattr(temporal_server, "temporal_cli", lambda: cli)
    server = DevServer(DevServerOptions(port=_free_port(), ui_port=None, database=tmp_path / "dev.sqlite"))
    await server.start()
    try:
        assert failed.exists()
        assert await (await connect(server.address)).service_client.check_health()
    finally:
        await server.stop()


async def test_its_own_port_taken_is_one_clear_error(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        server = DevServer(DevServerOptions(port=port, ui_port=None, database=tmp_path / "dev.sqlite"))
        with pytest.raises(StarterError, match=r"exited at start.*address already in use"):
            await server.start(timeout_s=20)
