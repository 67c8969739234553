"""The determinism guard: recorded histories of representative runs must replay against the
current workflow code. A failure here means a change to workflow code would break runs in
flight; if the change is meant, record anew (`python -m tests.histories.record`) and say so."""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from pathlib import Path

import pytest
from temporalio import workflow
from temporalio.client import WorkflowHistory
from temporalio.worker import Replayer

from contracts import RunRequest
from host.converter import DATA_CONVERTER
from host.workflow_runner import runner_for
from tests.histories import stored
from workflows import AgentRunWorkflow
from workflows.patches import CONVERSATION_BY_REFERENCE, DECIDED_AT_START, EARLIER, FUSED_STEPS, READ_ONLY_STEPS

HISTORIES = sorted((Path(__file__).parent / "histories").glob("*.json"))


def test_what_a_history_holds_by_reference_is_kept_beside_it() -> None:
    """(`patches_decided_at_start`, recorded before they were kept, holds by reference only its
    run's final result, which a replay does not read.)"""
    referenced = stored.referenced(_history("fused_steps"))
    assert referenced, "a test run's result and its check, together, go by reference"
    assert referenced <= {kept.name for kept in stored.KEPT.glob("*")}


def test_the_representative_runs_are_recorded() -> None:
    assert {path.stem for path in HISTORIES} >= {
        "rename_refactor",
        "wrong_fix",
        "approval",
        "continued",
        "forked",
        "budget_exhausted",
        "draft_plan",
        "conversation_by_reference",
        "read_only_steps",
        "patches_decided_at_start",
        "fused_steps",
        "parallel_subtasks",
        "parallel_subtask_child",
    }


def test_both_names_of_the_planning_activity_are_recorded() -> None:
    """Runs started before ADR 4 scheduled `plan`; later ones schedule `draft_plan`."""

    def scheduled(name: str) -> set[str]:
        events = json.loads((Path(__file__).parent / "histories" / f"{name}.json").read_text())["events"]
        return {
            event["activityTaskScheduledEventAttributes"]["activityType"]["name"]
            for event in events
            if event["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
        }

    assert "plan" in scheduled("rename_refactor") and "draft_plan" not in scheduled("rename_refactor")
    assert "draft_plan" in scheduled("draft_plan") and "plan" not in scheduled("draft_plan")


def test_both_endings_of_a_run_that_did_not_complete_are_recorded() -> None:
    """`wrong_fix` predates `workflows.patches.NOT_COMPLETED_FAILS` (it returned its FAILED result);
    `budget_exhausted` was recorded with it (it failed its workflow): both must replay."""
    endings = {
        name: json.loads((Path(__file__).parent / "histories" / f"{name}.json").read_text())["events"][-1]["eventType"]
        for name in ("wrong_fix", "budget_exhausted")
    }
    assert endings == {
        "wrong_fix": "EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED",
        "budget_exhausted": "EVENT_TYPE_WORKFLOW_EXECUTION_FAILED",
    }


def test_proposals_by_value_and_by_reference_are_both_recorded() -> None:
    """Runs started before `conversation-by-reference` sent the turns themselves; later runs
    mark the patch and send a reference: both must replay."""

    assert CONVERSATION_BY_REFERENCE in patches("conversation_by_reference")
    assert CONVERSATION_BY_REFERENCE not in patches("rename_refactor")


def test_both_ways_of_a_read_only_step_are_recorded() -> None:
    """Before `read-only-steps`, a read_file ran as the remote execute_tool and was checked
    after; since, it runs as a local activity and reuses the task's last check."""
    # bugfix-median: run the tests, read the code, fix it (then the check passes).
    assert READ_ONLY_STEPS not in patches("draft_plan") and "execute_read_only_tool" not in local("draft_plan")
    assert scheduled("draft_plan").count("execute_tool") == 3
    assert READ_ONLY_STEPS in patches("read_only_steps")
    assert local("read_only_steps").count("execute_read_only_tool") == 1
    assert scheduled("read_only_steps").count("execute_tool") == 2
    # One check fewer: the read step's.
    assert scheduled("read_only_steps").count("check_postconditions") == (
        scheduled("draft_plan").count("check_postconditions") - 1
    )


def test_patches_asked_where_used_and_at_start_are_both_recorded() -> None:
    """Runs started before `patches-decided-at-start` ask each patch where it is used; later
    runs ask that one patch in their first task and no other (workflows.patches)."""
    assert patches("patches_decided_at_start") == [DECIDED_AT_START]
    older = {name: patches(name) for name in ("draft_plan", "conversation_by_reference", "read_only_steps")}
    assert all(DECIDED_AT_START not in marked and set(marked) <= set(EARLIER) for marked in older.values())


def test_steps_before_and_after_fusing_are_recorded() -> None:
    """Before `fused-steps`, a read was verified, then run (two local activities), a write
    executed, then checked (two remote ones), and every step closed by a local activity of its
    own; since, each pair is one activity, and a step's record goes with the next proposal."""
    assert FUSED_STEPS not in patches("patches_decided_at_start")
    assert local("patches_decided_at_start").count("verify_proposal") == 3
    assert local("patches_decided_at_start").count("execute_read_only_tool") == 1
    assert local("patches_decided_at_start").count("record_step") == 3
    assert patches("fused_steps") == [DECIDED_AT_START, FUSED_STEPS]
    # bugfix-median: run the tests, read the code, fix it. The read: one local activity.
    assert local("fused_steps").count("verify_and_read") == 1
    assert "execute_read_only_tool" not in local("fused_steps")
    # The two writes: verified alone (a write is verified before it runs, never with it),
    # then executed and checked in one activity each.
    assert local("fused_steps").count("verify_proposal") == 2
    assert scheduled("fused_steps").count("execute_and_check") == 2
    assert "execute_tool" not in scheduled("fused_steps")
    # What is still checked alone: the claim that the task is done, and the goal's acceptance.
    assert scheduled("fused_steps").count("check_postconditions") == (
        scheduled("patches_decided_at_start").count("check_postconditions") - 2
    )
    # Each proposal writes the step before it; the task's last step is closed on its own.
    assert scheduled("fused_steps").count("record_then_propose") == 3
    assert "propose_action" not in scheduled("fused_steps")
    assert local("fused_steps").count("record_step") == 1


def test_a_run_with_parallel_subtasks_is_recorded() -> None:
    """independent-parts with RunRequest.parallel_subtasks: three children started at once, each
    merged back, then the public API's child; the parent itself proposes nothing."""
    kinds = [event["eventType"] for event in _events("parallel_subtasks")]
    started = [i for i, kind in enumerate(kinds) if kind == "EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_STARTED"]
    ended = [i for i, kind in enumerate(kinds) if kind == "EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED"]
    assert len(started) == len(ended) == 4
    assert started[2] < ended[0]
    assert scheduled("parallel_subtasks").count("merge_subtask") == 4
    assert "record_then_propose" not in scheduled("parallel_subtasks")
    # A child: its worktree, then its task's steps, with no goal or plan of its own.
    child = scheduled("parallel_subtask_child")
    assert child[0] == "prepare_subtask" and "record_then_propose" in child
    assert not {"prepare_workspace", "compile_goal", "draft_plan"} & set(child)


def scheduled(name: str) -> list[str]:
    """The remote activities a recorded history scheduled, in order."""
    return [
        event["activityTaskScheduledEventAttributes"]["activityType"]["name"]
        for event in _events(name)
        if event["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
    ]


def local(name: str) -> list[str]:
    """The local activities a recorded history ran, in order."""
    return [
        json.loads(base64.b64decode(event["markerRecordedEventAttributes"]["details"]["data"]["payloads"][0]["data"]))[
            "activity_type"
        ]
        for event in _events(name)
        if event["eventType"] == "EVENT_TYPE_MARKER_RECORDED"
        and event["markerRecordedEventAttributes"]["markerName"] == "core_local_activity"
    ]


def _history(name: str) -> dict:
    return json.loads((Path(__file__).parent / "histories" / f"{name}.json").read_text())


def _events(name: str) -> list[dict]:
    return _history(name)["events"]


def patches(name: str) -> list[str]:
    """The ids of the `workflow.patched` markers in a recorded history."""
    return [
        json.loads(base64.b64decode(payload["data"]))["id"]
        for event in _events(name)
        if event["eventType"] == "EVENT_TYPE_MARKER_RECORDED"
        and event["markerRecordedEventAttributes"]["markerName"] == "core_patch"
        for payload in event["markerRecordedEventAttributes"]["details"]["patch-data"]["payloads"]
    ]


@pytest.mark.parametrize("path", HISTORIES, ids=lambda path: path.stem)
async def test_a_recorded_history_replays(path: Path) -> None:
    # Its payloads kept by reference, in the store, as on the worker that ran it.
    stored.install()
    history = WorkflowHistory.from_json(path.stem, json.loads(path.read_text()))
    # As a worker replays it: with the lab's workflow runner (host/workflow_runner.py).
    replayer = Replayer(
        workflows=[AgentRunWorkflow], data_converter=DATA_CONVERTER, workflow_runner=runner_for(DATA_CONVERTER)
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, result.replay_failure


@workflow.defn(name="AgentRunWorkflow", sandboxed=False)
class ReorderedAgentRun:
    """A workflow under the same name that schedules a different first activity."""

    @workflow.run
    async def run(self, request: RunRequest) -> None:
        await workflow.execute_activity("compile_goal", request.goal, start_to_close_timeout=timedelta(seconds=5))


async def test_a_changed_workflow_fails_the_guard() -> None:
    """The guard can fail: history holds `prepare_workspace` where this code asks for another."""
    path = Path(__file__).parent / "histories" / "rename_refactor.json"
    history = WorkflowHistory.from_json("rename_refactor", json.loads(path.read_text()))
    replayer = Replayer(workflows=[ReorderedAgentRun], data_converter=DATA_CONVERTER)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
