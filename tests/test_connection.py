"""Connecting to a dev server the starter has just started: it listens before its frontend is
healthy, and on a loaded machine the gap is seconds."""

from __future__ import annotations

import pytest

from starter import connection


async def test_a_just_started_server_is_given_time_to_become_healthy(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[str] = []

    async def connect(address: str) -> object:
        attempts.append(address)
        if len(attempts) < 3:
            raise RuntimeError("Failed client connect: Server connection error: Frontend is not healthy yet")
        return "client"

    monkeypatch.setattr(connection, "connect", connect)
    assert await connection._connect("127.0.0.1:1", patient=True) == "client"
    assert len(attempts) == 3

    attempts.clear()
    with pytest.raises(RuntimeError, match="not healthy"):
        await connection._connect("127.0.0.1:1", patient=False)  # a server someone else runs: asked once
    assert len(attempts) == 1


async def test_other_failures_are_not_waited_out(monkeypatch: pytest.MonkeyPatch) -> None:
    attempts: list[str] = []

    async def connect(address: str) -> object:
        attempts.append(address)
        raise RuntimeError("Failed client connect: tcp connect error: Connection refused")

    monkeypatch.setattr(connection, "connect", connect)
    with pytest.raises(RuntimeError, match="refused"):
        await connection._connect("127.0.0.1:1", patient=True)
    assert len(attempts) == 1
