"""Every patch but one is retired (workflows.patches, docs/decisions/0006): a run asks the three a
run of the build before the cut marked, deprecated, in its first workflow task, then the live
`approval-memo`, and nothing else.
What the SDK does with those markers is checked here, on the histories it left."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client, WorkflowHistory
from temporalio.worker import Replayer, UnsandboxedWorkflowRunner

from contracts import RunState
from contracts.activity_names import RETIRED
from host.build import build_worker
from host.converter import DATA_CONVERTER
from lab.runs.catalog import Task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from tests.histories import stored
from workflows import AgentRunWorkflow, patches
from workflows.outcome import run_result

HISTORIES = Path(__file__).parent / "histories"


async def test_a_new_run_marks_the_retired_patches_deprecated_in_its_first_workflow_task(
    client: Client, task_queue: str, bugfix_task: Task
) -> None:
    async with build_worker(client, task_queue):
        handle = await start_durable_run(client, build_request(bugfix_task, "durable"), task_queue=task_queue)
        assert (await run_result(handle)).outcome == RunState.COMPLETED
    events = [event async for event in handle.fetch_history_events()]
    first_task_done = next(e.event_id for e in events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
    marked = [
        (event.event_id, json.loads(payload.data))
        for event in events
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and event.marker_recorded_event_attributes.marker_name == "core_patch"
        for payload in event.marker_recorded_event_attributes.details["patch-data"].payloads
    ]
    # Recorded with the first task's commands, before its first activity; no patch after it.
    first_activity = next(e.event_id for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    # Then the one live patch: the run keeps what it waits for in its memo.
    assert [(patch["id"], patch["deprecated"]) for _, patch in marked] == [
        *[(p, True) for p in patches.DEPRECATED],
        (patches.APPROVAL_MEMO, False),
    ]
    assert all(first_task_done < event_id < first_activity for event_id, _ in marked)
    scheduled = {
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    }
    assert {"draft_plan", "record_then_propose", "execute_and_check"} <= scheduled
    assert not scheduled & RETIRED


async def _replay_without_asking(name: str, monkeypatch: pytest.MonkeyPatch) -> BaseException | None:
    """Replayed by a workflow that no longer asks any patch: the build after the next cut."""
    monkeypatch.setattr(patches, "DEPRECATED", ())
    stored.install()
    history = WorkflowHistory.from_json(name, json.loads((HISTORIES / f"{name}.json").read_text()))
    # Unsandboxed: the sandbox would import workflows.patches afresh, without the change.
    replayer = Replayer(
        workflows=[AgentRunWorkflow], data_converter=DATA_CONVERTER, workflow_runner=UnsandboxedWorkflowRunner()
    )
    return (await replayer.replay_workflow(history, raise_on_replay_failure=False)).replay_failure


async def test_a_live_marker_nobody_asks_for_fails_the_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why the retired patches are still asked: a run of the build before the cut marked them
    live, and the SDK refuses a live marker no code asks for. (test_replay replays the same
    history with them asked.)"""
    failure = await _replay_without_asking("before_the_cut", monkeypatch)
    assert failure is not None and "Non-deprecated patch marker" in str(failure)


async def test_a_deprecated_marker_needs_no_asking(monkeypatch: pytest.MonkeyPatch) -> None:
    """Why they may go later: a run of this build marks them deprecated, which a build that no
    longer asks them replays, once no run of the build before the cut is left."""
    assert await _replay_without_asking("bugfix_median", monkeypatch) is None
