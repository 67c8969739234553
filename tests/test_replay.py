"""The determinism guard: recorded histories of representative runs must replay against the
current workflow code. A failure here means a change to workflow code would break runs in
flight; if the change is meant, record anew (`python -m tests.histories.record`) and say so.

Histories of behaviour the workflow no longer has are in `histories/retired/`, with the commit
that replays them (docs/decisions/0006); `before_the_cut` is a run of the build just before
that cut, whose patch markers this code still answers."""

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
from contracts.activity_names import RETIRED, SCHEDULED
from host.converter import DATA_CONVERTER
from host.workflow_runner import runner_for
from tests.histories import stored
from workflows import AgentRunWorkflow
from workflows.patches import DEPRECATED

HERE = Path(__file__).parent / "histories"
HISTORIES = sorted(HERE.glob("*.json"))
RETIRED_DIR = HERE / "retired"
MANIFEST = json.loads((RETIRED_DIR / "manifest.json").read_text())


def test_what_a_history_holds_by_reference_is_kept_beside_it() -> None:
    for name in ("bugfix_median", "before_the_cut"):
        referenced = stored.referenced(_history(name))
        assert referenced, "a test run's result and its check, together, go by reference"
        assert referenced <= {kept.name for kept in stored.KEPT.glob("*")}


def test_the_representative_runs_are_recorded() -> None:
    assert {path.stem for path in HISTORIES} == {
        "rename_refactor",
        "wrong_fix",
        "approval",
        "continued",
        "forked",
        "budget_exhausted",
        "bugfix_median",
        "parallel_subtasks",
        "parallel_subtask_child",
        "before_the_cut",
    }


def test_every_retired_history_is_in_the_manifest_with_the_commit_that_replays_it() -> None:
    retired = {path.stem for path in RETIRED_DIR.glob("*.json")} - {"manifest"}
    assert set(MANIFEST["histories"]) == retired
    assert len(MANIFEST["commit"]) == 40 and int(MANIFEST["commit"], 16) >= 0
    assert all(entry["why"] for entry in MANIFEST["histories"].values())


def test_the_histories_schedule_only_what_the_workflow_schedules() -> None:
    for path in HISTORIES:
        ran = set(scheduled(path.stem)) | set(local(path.stem))
        assert ran <= SCHEDULED, (path.stem, ran - SCHEDULED)
        assert not ran & RETIRED


def test_a_run_marks_the_retired_patches_deprecated_in_its_first_task() -> None:
    """A run of this build marks them deprecated (a later build may stop asking); a run of the
    build before the cut marked them live, and this build still asks them, so it replays."""
    assert markers("bugfix_median") == [(patch, True) for patch in DEPRECATED]
    assert markers("before_the_cut") == [(patch, False) for patch in DEPRECATED]
    # Each generation and each child asks them: a continued run's first one included.
    assert all(markers(name) == markers("bugfix_median") for name in ("continued", "parallel_subtask_child"))


def test_a_run_that_did_not_complete_fails_its_workflow() -> None:
    endings = {name: _events(name)[-1]["eventType"] for name in ("wrong_fix", "budget_exhausted")}
    assert set(endings.values()) == {"EVENT_TYPE_WORKFLOW_EXECUTION_FAILED"}


def test_a_read_and_a_write_are_one_activity_each() -> None:
    """bugfix-median: run the tests, read the code, fix it. The read is verified and run in one
    local activity; a write (or a command) is verified alone, then executed and checked in one
    activity, and its record written at its end (for the run's disk budget); each proposal
    writes the record of a step before it that only read."""
    assert local("bugfix_median").count("verify_and_read") == 1
    assert local("bugfix_median").count("verify_proposal") == 2
    assert scheduled("bugfix_median").count("execute_and_check") == 2
    assert scheduled("bugfix_median").count("record_then_propose") == 3
    assert scheduled("bugfix_median")[:3] == ["prepare_workspace", "compile_goal", "draft_plan"]
    # The two writing steps close on their own; the read's record goes with the next proposal.
    assert local("bugfix_median").count("record_step") == 2
    # The same commands as the run recorded on the build before the cut.
    assert scheduled("bugfix_median") == scheduled("before_the_cut")
    assert local("bugfix_median") == local("before_the_cut")


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


def scheduled(name: str, where: Path = HERE) -> list[str]:
    """The remote activities a recorded history scheduled, in order."""
    return [
        event["activityTaskScheduledEventAttributes"]["activityType"]["name"]
        for event in _events(name, where)
        if event["eventType"] == "EVENT_TYPE_ACTIVITY_TASK_SCHEDULED"
    ]


def local(name: str, where: Path = HERE) -> list[str]:
    """The local activities a recorded history ran, in order."""
    return [
        json.loads(base64.b64decode(event["markerRecordedEventAttributes"]["details"]["data"]["payloads"][0]["data"]))[
            "activity_type"
        ]
        for event in _events(name, where)
        if event["eventType"] == "EVENT_TYPE_MARKER_RECORDED"
        and event["markerRecordedEventAttributes"]["markerName"] == "core_local_activity"
    ]


def markers(name: str, where: Path = HERE) -> list[tuple[str, bool]]:
    """The patch markers of a recorded history: (id, deprecated)."""
    return [
        (marked["id"], marked["deprecated"])
        for event in _events(name, where)
        if event["eventType"] == "EVENT_TYPE_MARKER_RECORDED"
        and event["markerRecordedEventAttributes"]["markerName"] == "core_patch"
        for payload in event["markerRecordedEventAttributes"]["details"]["patch-data"]["payloads"]
        for marked in [json.loads(base64.b64decode(payload["data"]))]
    ]


def _history(name: str, where: Path = HERE) -> dict:
    return json.loads((where / f"{name}.json").read_text())


def _events(name: str, where: Path = HERE) -> list[dict]:
    return _history(name, where)["events"]


async def _replay(path: Path) -> BaseException | None:
    # Its payloads kept by reference, in the store, as on the worker that ran it.
    stored.install()
    history = WorkflowHistory.from_json(path.stem, json.loads(path.read_text()))
    # As a worker replays it: with the lab's workflow runner (host/workflow_runner.py).
    replayer = Replayer(
        workflows=[AgentRunWorkflow], data_converter=DATA_CONVERTER, workflow_runner=runner_for(DATA_CONVERTER)
    )
    return (await replayer.replay_workflow(history, raise_on_replay_failure=False)).replay_failure


@pytest.mark.parametrize("path", HISTORIES, ids=lambda path: path.stem)
async def test_a_recorded_history_replays(path: Path) -> None:
    failure = await _replay(path)
    assert failure is None, failure


@pytest.mark.parametrize("name", sorted(MANIFEST["histories"]))
async def test_a_retired_history_replays_here_as_its_manifest_says(name: str) -> None:
    """Honest either way: a history the manifest says no longer replays fails here (it needs its
    build), and one it says still replays does."""
    failure = await _replay(RETIRED_DIR / f"{name}.json")
    assert (failure is None) == MANIFEST["histories"][name]["replays_here"], failure


@workflow.defn(name="AgentRunWorkflow", sandboxed=False)
class ReorderedAgentRun:
    """A workflow under the same name that schedules a different first activity."""

    @workflow.run
    async def run(self, request: RunRequest) -> None:
        await workflow.execute_activity("compile_goal", request.goal, start_to_close_timeout=timedelta(seconds=5))


async def test_a_changed_workflow_fails_the_guard() -> None:
    """The guard can fail: history holds `prepare_workspace` where this code asks for another."""
    history = WorkflowHistory.from_json("rename_refactor", _history("rename_refactor"))
    replayer = Replayer(workflows=[ReorderedAgentRun], data_converter=DATA_CONVERTER)
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is not None
