"""A run decides its patches in its first workflow task (workflows.patches): a query that
splits a later workflow task around a local activity cannot then make its replay ask a patch
before the patch's marker is known."""

from __future__ import annotations

import json

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from contracts import RunState
from host.build import build_worker
from lab.catalog import Task
from lab.durable_start import start_durable_run
from lab.run_request import build_request
from workflows.outcome import run_result
from workflows.patches import DECIDED_AT_START, EARLIER, FUSED_STEPS, RUN_DISK_BUDGET, Patches


async def test_a_new_run_marks_its_patches_in_its_first_workflow_task(
    client: Client, task_queue: str, bugfix_task: Task
) -> None:
    async with build_worker(client, task_queue):
        handle = await start_durable_run(client, build_request(bugfix_task, "durable"), task_queue=task_queue)
        assert (await run_result(handle)).outcome == RunState.COMPLETED
    events = [event async for event in handle.fetch_history_events()]
    first_task_done = next(e.event_id for e in events if e.event_type == EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
    marked = [
        (event.event_id, json.loads(payload.data)["id"])
        for event in events
        if event.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and event.marker_recorded_event_attributes.marker_name == "core_patch"
        for payload in event.marker_recorded_event_attributes.details["patch-data"].payloads
    ]
    # Recorded with the first task's commands, before its first activity; no patch after it.
    first_activity = next(e.event_id for e in events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    assert [patch for _, patch in marked] == [DECIDED_AT_START, FUSED_STEPS, RUN_DISK_BUDGET]
    assert all(first_task_done < event_id < first_activity for event_id, _ in marked)
    # And every earlier behaviour is on: the plan drafted by `draft_plan`, a read run locally;
    # and the fused steps: a read verified with it, a write executed and checked together.
    scheduled = [
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in events
        if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
    ]
    assert "draft_plan" in scheduled and "plan" not in scheduled
    assert "execute_and_check" in scheduled and "execute_tool" not in scheduled
    local = [
        json.loads(e.marker_recorded_event_attributes.details["data"].payloads[0].data)
        for e in events
        if e.event_type == EventType.EVENT_TYPE_MARKER_RECORDED
        and e.marker_recorded_event_attributes.marker_name == "core_local_activity"
    ]
    ran_locally = [marker["activity_type"] for marker in local]
    assert "verify_and_read" in ran_locally and "execute_read_only_tool" not in ran_locally


def test_a_patch_asked_further_into_the_run_is_refused() -> None:
    assert "read-only-steps" in EARLIER
    with pytest.raises(ValueError, match="decide it at start"):
        Patches(decided_at_start=True).on("a-new-behaviour")
