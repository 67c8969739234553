"""A benchmark's own Temporal dev server: headless, on a free port, with its history and the
lab's data in a temporary directory that goes when the benchmark ends."""

from __future__ import annotations

import dataclasses
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import NamedTuple

from temporalio.client import Client

from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment
from experiments.harness.cluster import free_port
from host.client import connect
from host.converter import ArtifactStoreDriver, data_converter_for
from lab.processes.temporal_server import DevServer, DevServerOptions


class ScratchServer(NamedTuple):
    client: Client
    # What an in-process worker (or baseline) of the benchmark uses: the scratch directory as
    # its data directory, the rest as this process's.
    deps: Dependencies
    # Where the client's large payloads go (the scratch directory's artifact store), and how many.
    driver: ArtifactStoreDriver

    @property
    def scratch(self) -> Path:
        return self.deps.data_dir


@asynccontextmanager
async def scratch_server(prefix: str) -> AsyncIterator[ScratchServer]:
    """A client of a fresh dev server, with the scratch directory's Dependencies."""
    with tempfile.TemporaryDirectory(prefix=prefix) as scratch:
        deps = dataclasses.replace(from_environment(), data_dir=Path(scratch))
        driver = ArtifactStoreDriver(deps.artifacts)
        server = DevServer(DevServerOptions(port=free_port(), ui_port=None, database=Path(scratch) / "bench.sqlite"))
        await server.start()
        try:
            client = await connect(server.address, data_converter=data_converter_for(driver))
            yield ScratchServer(client, deps, driver)
        finally:
            await server.stop()
