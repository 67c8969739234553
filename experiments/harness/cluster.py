"""A lab cluster of real processes: a Temporal dev server with a history file (so it can be
stopped and started again), the operations service, and workers to start and kill."""

from __future__ import annotations

import os
import socket
from pathlib import Path
from types import TracebackType

from temporalio.client import Client

import settings
from experiments.harness.worker_process import WorkerProcess
from experiments.ops_service.process import OpsServiceProcess
from host.client import connect
from lab.temporal_server import DevServer, DevServerOptions

OPS_URL = "AGENT_LAB_OPS_URL"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LabCluster:
    def __init__(self, directory: Path, *, ops: bool = True) -> None:
        self.directory = directory
        self.directory.mkdir(parents=True, exist_ok=True)
        self.server = DevServer(
            DevServerOptions(port=free_port(), ui_port=None, database=directory / "temporal.sqlite")
        )
        self.ops = OpsServiceProcess(directory / "ops.sqlite") if ops else None
        self.ops_url: str | None = None
        self.client: Client | None = None
        self.workers: list[WorkerProcess] = []
        self._ops_url_before: str | None = None

    async def __aenter__(self) -> LabCluster:
        await self.server.start()
        if self.ops is not None:
            self.ops_url = await self.ops.start()
            # This process too (its judging of end states, a baseline run in it) uses the
            # cluster's service while the cluster is up; what was set before comes back after.
            self._ops_url_before = os.environ.get(OPS_URL)
            os.environ[OPS_URL] = self.ops_url
        self.client = await connect(self.server.address)
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for worker in self.workers:
            await worker.stop()
        if self.ops is not None:
            await self.ops.stop()
            if self._ops_url_before is None:
                os.environ.pop(OPS_URL, None)
            else:
                os.environ[OPS_URL] = self._ops_url_before
        await self.server.stop()

    def env(self, fault_plan: Path | None = None) -> dict[str, str]:
        """The environment of every lab process in this cluster."""
        # The cluster's own dev server: none of the user's Temporal settings (a profile, TLS, a key).
        env = {key: value for key, value in os.environ.items() if not key.startswith(("AGENT_LAB_FAULT", "TEMPORAL_"))}
        env["TEMPORAL_ADDRESS"] = self.server.address
        if self.ops_url:
            env[OPS_URL] = self.ops_url
        if fault_plan is not None:
            env["AGENT_LAB_FAULT_PLAN"] = str(fault_plan)
        # A worker is started again after every kill: its bytecode is cached once for all of
        # them, out of the checkout, even where the environment says to write none (an import
        # of the worker took 0.8 s instead of 2-4 s here, where PYTHONDONTWRITEBYTECODE is set).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.setdefault("PYTHONPYCACHEPREFIX", str(settings.data_dir() / "pycache"))
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
