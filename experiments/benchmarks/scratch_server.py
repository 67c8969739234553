"""A benchmark's own Temporal dev server: headless, on a free port, with its history and the
lab's data in a temporary directory that goes when the benchmark ends."""

from __future__ import annotations

import os
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

from temporalio.client import Client

from experiments.harness.cluster import free_port
from host.client import connect
from lab.temporal_server import DevServer, DevServerOptions


@asynccontextmanager
async def scratch_server(prefix: str) -> AsyncIterator[tuple[Client, Path]]:
    """A client of a fresh dev server, and the scratch directory (AGENT_LAB_DATA meanwhile)."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        os.environ["AGENT_LAB_DATA"] = scratch
        server = DevServer(DevServerOptions(port=free_port(), ui_port=None, database=Path(scratch) / "bench.sqlite"))
        await server.start()
        try:
            yield await connect(server.address), Path(scratch)
        finally:
            await server.stop()
