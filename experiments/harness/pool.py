"""A pool of worker processes that stays full: a worker killed by a fault is replaced, as a
supervisor (systemd, Kubernetes) would replace a crashed one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType

from experiments.harness.cluster import LabCluster
from experiments.harness.worker_process import WorkerProcess

# How long a supervisor waits before starting a worker that failed to start, again.
RESTART_PAUSE_S = 0.5


class WorkerPool:
    def __init__(self, cluster: LabCluster, size: int, fault_plan: Path | None = None) -> None:
        self._cluster = cluster
        self._size = size
        self._fault_plan = fault_plan
        self._slots: list[asyncio.Task[None]] = []
        self.replaced = 0

    async def __aenter__(self) -> WorkerPool:
        for _ in range(self._size):
            first = await self._cluster.start_worker(self._fault_plan)
            self._slots.append(asyncio.create_task(self._keep(first)))
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        for slot in self._slots:
            slot.cancel()
        # Gathered, not awaited one by one under suppress(CancelledError): that would also
        # swallow a cancellation of the experiment itself arriving meanwhile.
        await asyncio.gather(*self._slots, return_exceptions=True)

    async def _keep(self, worker: WorkerProcess) -> None:
        while True:
            await worker.wait_exit(timeout_s=None)
            self.replaced += 1
            worker = await self._replacement()

    async def _replacement(self) -> WorkerProcess:
        """A new worker, tried again until one starts: one started while the Temporal server
        restarts exits at once (nothing answers), and a supervisor tries again."""
        while True:
            try:
                return await self._cluster.start_worker(self._fault_plan)
            except (RuntimeError, TimeoutError):
                await asyncio.sleep(RESTART_PAUSE_S)
