"""The operations service a task needs, started by the starter when nobody configured one.

A task whose fixture holds `ops_seed.json` acts on the operations service. When
AGENT_LAB_OPS_URL is set, that service is used as it is; otherwise `ops_service_for` starts
one for the length of the run, over `data/ops/service.sqlite` (the same file every time, so
every earlier run's tenant stays there to inspect), and yields its URL, which the starter hands
to the in-process worker and the baseline in their Dependencies.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import settings
from agent.ops_world import seed_file
from contracts.errors import InfrastructureError, StarterError
from lab.runs.catalog import Task
from ops_service import OpsServiceProcess
from starter.render import Printer

OPS_URL_VARIABLE = "AGENT_LAB_OPS_URL"


def service_db_path() -> Path:
    return settings.data_dir() / "ops" / "service.sqlite"


@asynccontextmanager
async def ops_service_for(task: Task, printer: Printer | None = None) -> AsyncIterator[str | None]:
    """Yield the operations service's URL while the block runs: the configured one, one started
    here, or None when the task needs no service."""
    configured = settings.ops_url()
    if configured is not None or seed_file(task.fixture_dir) is None:
        yield configured
        return
    service = OpsServiceProcess(service_db_path())
    try:
        url = await service.start()
    except InfrastructureError as error:
        raise StarterError(f"task {task.spec.id} needs the operations service, which did not start: {error}") from None
    (printer or Printer()).line(
        f"  operations service: {url} (database {service.db_path}; each run's tenant is its world id)"
    )
    try:
        yield url
    finally:
        await service.stop()
