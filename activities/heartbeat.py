"""Heartbeats for long activities, so a dead worker is noticed in seconds, not at the timeout."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from temporalio import activity


@contextlib.asynccontextmanager
async def heartbeating(interval_s: float = 0.5) -> AsyncIterator[None]:
    """Heartbeat every `interval_s` while the body runs."""

    async def beat() -> None:
        while True:
            activity.heartbeat()
            await asyncio.sleep(interval_s)

    task = asyncio.create_task(beat())
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
