"""Run the baseline loop in this process, printing its steps as they happen."""

from __future__ import annotations

import asyncio

from agent.dependencies import Dependencies
from agent.sandbox import SandboxUnavailable, report_for
from baseline import BaselineLoop
from contracts import RunRequest, RunResult
from contracts.errors import StarterError
from starter.live_call import for_step
from starter.render import Printer
from starter.terminal_approval import terminal_approver


async def run_baseline(request: RunRequest, printer: Printer, deps: Dependencies, *, ask: bool = True) -> RunResult:
    """`ask`: a call that needs approval waits for the person at this terminal (refused when
    there is none); False runs it unasked, and the run then fails with an unapproved effect."""
    printer.started("baseline", request.run_id, request.task_id)
    # A person who just saw a durable run's link looks for this one's.
    printer.line("  no Web UI link: the baseline runs outside Temporal, its state only in this process")
    try:
        # The loop's tools run in this process: the sandbox probed here is the one they use.
        printer.sandbox(await asyncio.to_thread(report_for, deps))
    except SandboxUnavailable as error:
        raise StarterError(f"sandbox: {error}") from None
    if not ask:
        printer.line("  --no-approval: a call that needs a person's approval runs unasked, and fails the run")
    loop = BaselineLoop(
        deps,
        on_step=printer.step,
        # The step a call proposes is named as its step line names it: by the task.
        on_model_call=lambda step, usage: printer.calls.during(for_step(step, request.task_id), usage.total_tokens),
        approver=terminal_approver(printer) if ask else None,
    )
    return await loop.run(request)
