"""Submit an agent run as a workflow and follow it until it ends."""

from __future__ import annotations

import asyncio
import contextlib
import time
from datetime import UTC, datetime
from urllib.parse import quote

from temporalio.api.enums.v1 import PendingActivityState
from temporalio.client import Client, WorkflowHandle
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.service import RPCError

from agent.dependencies import Dependencies
from contracts import TASK_QUEUE, RunRequest, RunResult, RunSnapshot, RunState
from contracts import activity_names as named
from host.build import build_worker
from lab.runs.durable_start import start_durable_run
from starter.connection import Connection
from starter.live_call import ModelCallLine, for_step
from starter.render import Printer
from workflows import AgentRunWorkflow, visibility
from workflows.outcome import run_result

# The progress query, soon after a change and then less often while nothing changes: a run of
# a real model on a CPU changes every few seconds, and each query takes worker and server time
# from the model's threads; a scripted run changes many times a second and is followed as fast.
_POLL_FIRST_S, _POLL_MOST_S = 0.1, 1.0


def run_link(connection: Connection, workflow_id: str, run_id: str) -> str:
    namespace = quote(connection.client.namespace)
    return f"{connection.ui_url}/namespaces/{namespace}/workflows/{quote(workflow_id)}/{run_id}/history"


async def run_durable(
    connection: Connection, request: RunRequest, printer: Printer, deps: Dependencies, *, with_worker: bool = True
) -> tuple[RunResult, str]:
    """Start the workflow (with an in-process worker unless told otherwise), print its steps
    as they happen, and return its result and Web UI link."""
    worker = build_worker(connection.client, dependencies=deps) if with_worker else None
    async with worker if worker else contextlib.nullcontext():
        handle = await _start(
            connection.client, request.model_copy(update={"search_attributes": connection.search_attributes})
        )
        link = run_link(connection, handle.id, handle.result_run_id or "")
        printer.started("durable", handle.id, request.task_id, link)
        if not with_worker:
            printer.line(f"  waiting for a worker on task queue {TASK_QUEUE!r} (python worker.py)")
        try:
            result = await follow(handle, printer)
        except asyncio.CancelledError:  # Ctrl-C: asyncio.run cancels the command's task
            printer.line(
                f"stopped following the run: it goes on once a worker serves it; follow it again (a worker of its own "
                f"included) with `uv run python -m starter watch {handle.id}`"
            )
            raise
    return result, link


async def _start(client: Client, request: RunRequest) -> WorkflowHandle[AgentRunWorkflow, RunResult]:
    search_attributes = None
    if request.search_attributes:
        search_attributes = TypedSearchAttributes(
            [SearchAttributePair(visibility.RUNTIME, "durable"), SearchAttributePair(visibility.TASK, request.task_id)]
        )
    return await start_durable_run(
        client,
        request,
        memo={"runtime": "durable", "task": request.task_id},
        search_attributes=search_attributes,
        static_summary=f"durable agent run on task {request.task_id}",
        static_details=f"Goal: {request.goal}",
    )


async def follow(handle: WorkflowHandle[AgentRunWorkflow, RunResult], printer: Printer) -> RunResult:
    """Poll the progress query and print new steps until the result arrives; say when no
    worker has answered for a while, and when one does again."""
    outcome = asyncio.create_task(run_result(handle))
    unanswered = _Unanswered(printer)
    shown = 0
    last_state: RunState | None = None
    sandbox_said = False
    asked_step: int | None = None  # the step whose approval request was shown
    pause = _POLL_FIRST_S
    changed_at = time.monotonic()
    try:
        while not outcome.done():
            try:
                progress = await handle.query(AgentRunWorkflow.progress, shown)
            except RPCError:
                progress = None  # no worker has picked the run up yet; the result still comes
            unanswered.saw(progress is not None, handle.id)
            if progress is not None:
                if progress.sandbox is not None and not sandbox_said:
                    printer.sandbox(progress.sandbox)
                    sandbox_said = True
                for record in progress.steps:
                    printer.step(record)
                shown += len(progress.steps)
                pending = progress.pending_approval
                if pending is not None and pending.step != asked_step:
                    printer.awaiting_approval(handle.id, pending)
                    asked_step = pending.step
                if progress.state != last_state and progress.state in _PHASES:
                    printer.state(progress.state)
                changed = bool(progress.steps) or progress.state != last_state
                pause = _POLL_FIRST_S if changed else min(pause * 2, _POLL_MOST_S)
                last_state = progress.state
                if changed:
                    changed_at = time.monotonic()
                    printer.calls.clear()
                elif (
                    progress.state in _MODEL_STATES and time.monotonic() - changed_at >= printer.calls.pace.show_after_s
                ):
                    await show_model_call(handle, progress, printer.calls)
            await asyncio.wait({outcome}, timeout=pause)
        result = outcome.result()
    finally:
        outcome.cancel()
        printer.calls.clear()
    for record in result.steps[shown:]:
        printer.step(record)
    return result


# Phases worth a line of their own; steps are printed as they are recorded.
_PHASES = frozenset({RunState.PREPARING, RunState.COMPILING_GOAL, RunState.PLANNING, RunState.ACCEPTING})
# The states a run makes a model call in, and the activities that are one, by the names histories
# record (a watched run may have started on a build that still scheduled the retired ones).
_MODEL_STATES = frozenset({RunState.COMPILING_GOAL, RunState.PLANNING, RunState.REPLANNING, RunState.PROPOSING})
_PROPOSALS = frozenset({named.RECORD_THEN_PROPOSE, "propose_action"})
_MODEL_CALLS = {
    named.COMPILE_GOAL: "to interpret the goal",
    named.DRAFT_PLAN: "to draft the plan",
    "plan": "to draft the plan",
}


async def show_model_call(
    handle: WorkflowHandle[AgentRunWorkflow, RunResult], progress: RunSnapshot, calls: ModelCallLine
) -> None:
    """The run's model call in flight, as the server records its pending activities: the worker
    that makes it may be another process (`watch`), so the workflow is asked nothing more."""
    try:
        described = await handle.describe()
    except RPCError:
        return  # the next poll asks again
    for pending in described.raw_description.pending_activities:
        name = pending.activity_type.name
        what = for_step(progress.step, progress.subtask.id) if name in _PROPOSALS else _MODEL_CALLS.get(name)
        if what is None or pending.state != PendingActivityState.PENDING_ACTIVITY_STATE_STARTED:
            continue
        started = pending.last_started_time.ToDatetime(tzinfo=UTC)
        # The server's clock against this one's: the same machine's, or one kept in step by NTP.
        elapsed_s = max((datetime.now(UTC) - started).total_seconds(), 0.0)
        call = (pending.activity_id, pending.attempt, started)
        calls.show(call, what, elapsed_s, progress.usage.total_tokens, pending.attempt)
        return
    calls.clear()  # between attempts, or the call has just ended


class _Unanswered:
    """How long the run's queries have gone unanswered: no worker polls its task queue (none
    started, or it died). Said past FIRST_S, then every AGAIN_S, and when a worker answers."""

    FIRST_S, AGAIN_S = 10.0, 60.0

    def __init__(self, printer: Printer) -> None:
        self._printer = printer
        self._since: float | None = None
        self._next = self.FIRST_S

    def saw(self, answered: bool, run_id: str) -> None:
        now = time.monotonic()
        if answered:
            if self._next > self.FIRST_S:
                self._printer.line("  a worker answers for the run again")
            self._since, self._next = None, self.FIRST_S
            return
        self._since = self._since if self._since is not None else now
        if now - self._since >= self._next:
            self._printer.line(
                f"  no worker has answered for the run for {now - self._since:.0f} s: start one "
                f"(`uv run python worker.py`) or follow it with a worker of its own "
                f"(`uv run python -m starter watch {run_id}`)"
            )
            self._next += self.AGAIN_S
