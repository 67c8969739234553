"""A pool of worker processes that stays full: a worker killed by a fault is replaced, as a
supervisor (systemd, Kubernetes) would replace a crashed one."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import TracebackType

from experiments.harness.cluster import LabCluster
from experiments.harness.worker_process import WorkerProcess


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
            worker = await self._cluster.start_worker(self._fault_plan)
