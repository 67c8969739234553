"""Run the baseline loop in this process, printing its steps as they happen."""

from __future__ import annotations

from baseline import BaselineLoop
from contracts import RunRequest, RunResult
from starter.render import Printer


async def run_baseline(request: RunRequest, printer: Printer) -> RunResult:
    printer.started("baseline", request.run_id, request.task_id)
    # A person who just saw a durable run's link looks for this one's.
    printer.line("  no Web UI link: the baseline runs outside Temporal, its state only in this process")
    return await BaselineLoop(on_step=printer.step).run(request)
