"""A lab cluster of real processes: a Temporal dev server with a history file (so it can be
stopped and started again), the operations service, and workers to start and kill."""

from __future__ import annotations

import dataclasses
import os
import socket
from pathlib import Path
from types import TracebackType

from temporalio.client import Client

import settings
from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment
from experiments.harness.worker_process import WorkerProcess
from host.client import connect
from host.converter import ArtifactStoreDriver, data_converter_for
from lab.processes.temporal_server import DevServer, DevServerOptions
from ops_service.process import OpsServiceProcess

OPS_URL = "AGENT_LAB_OPS_URL"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LabCluster:
    def __init__(self, directory: Path, *, ops: bool = True, data_dir: Path | None = None) -> None:
        """`data_dir`: where its workers keep runs' state (None: this process's own)."""
        self.directory = directory
        self.data_dir = data_dir if data_dir is not None else settings.data_dir()
        self.directory.mkdir(parents=True, exist_ok=True)
        self.server = DevServer(
            DevServerOptions(port=free_port(), ui_port=None, database=directory / "temporal.sqlite")
        )
        self.ops = OpsServiceProcess(directory / "ops.sqlite") if ops else None
        self.ops_url: str | None = None
        self._dependencies: Dependencies | None = None
        self.client: Client | None = None
        self.workers: list[WorkerProcess] = []

    async def __aenter__(self) -> LabCluster:
        await self.server.start()
        if self.ops is not None:
            self.ops_url = await self.ops.start()
        # Built once, now that the service's URL is known: every reader shares its stores.
        self._dependencies = dataclasses.replace(from_environment(), data_dir=self.data_dir, ops_url=self.ops_url)
        # Large payloads go by reference to the workers' artifact store: this client reads them there.
        converter = data_converter_for(ArtifactStoreDriver(self.dependencies.artifacts))
        self.client = await connect(self.server.address, data_converter=converter)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for worker in self.workers:
            await worker.stop()
        if self.ops is not None:
            await self.ops.stop()
        await self.server.stop()

    @property
    def dependencies(self) -> Dependencies:
        """What this process uses when it acts on the cluster's runs (judges their end states,
        runs a baseline beside them): the workers' data directory and the cluster's service."""
        if self._dependencies is None:
            raise RuntimeError("the cluster's dependencies exist once it has started (async with LabCluster(...))")
        return self._dependencies

    def env(self, fault_plan: Path | None = None) -> dict[str, str]:
        """The environment of every lab process in this cluster."""
        # The cluster's own dev server: none of the user's Temporal settings (a profile, TLS, a key).
        env = {key: value for key, value in os.environ.items() if not key.startswith(("AGENT_LAB_FAULT", "TEMPORAL_"))}
        env["TEMPORAL_ADDRESS"] = self.server.address
        env["AGENT_LAB_DATA"] = str(self.data_dir)
        if self.ops_url:
            env[OPS_URL] = self.ops_url
        if fault_plan is not None:
            env["AGENT_LAB_FAULT_PLAN"] = str(fault_plan)
        # A worker is started again after every kill: its bytecode is cached once for all of
        # them, out of the checkout, even where the environment says to write none (an import
        # of the worker took 0.8 s instead of 2-4 s here, where PYTHONDONTWRITEBYTECODE is set).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.setdefault("PYTHONPYCACHEPREFIX", str(self.data_dir / "pycache"))
        return env

    async def start_worker(self, fault_plan: Path | None = None) -> WorkerProcess:
        log = self.directory / f"worker-{len(self.workers) + 1}.log"
        worker = await WorkerProcess(self.env(fault_plan), log).start()
        self.workers.append(worker)
        return worker

    async def restart_server(self) -> None:
        """Stop the dev server and start it again on the same port and history file."""
        await self.server.stop()
        await self.server.start()
