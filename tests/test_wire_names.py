"""Fields renamed in code keep their serialized names (contracts/wire_names.py, decision 7): the
payloads of the recorded histories read and are written again byte for byte, and every renamed
field reads under both names."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import AliasChoices, BaseModel
from pydantic_core import to_json
from temporalio.api.common.v1 import Payload

import contracts
from contracts import (
    DraftPlanResult,
    MergeSubtaskInput,
    PendingApproval,
    Plan,
    RunBudget,
    RunRequest,
    RunResult,
    RunSnapshot,
    StepRecord,
    Subtask,
    SubtaskOrigin,
)
from contracts.envelopes import ProposeActionInput, RecordThenProposeInput
from tests.histories.stored import KEPT

HISTORIES = sorted(Path(__file__).parent.joinpath("histories").glob("*.json"))
ACTIVITY_INPUTS: dict[str, type[BaseModel]] = {
    "record_then_propose": RecordThenProposeInput,
    "merge_subtask": MergeSubtaskInput,
}
ACTIVITY_RESULTS: dict[str, type[BaseModel]] = {"draft_plan": DraftPlanResult}
REFERENCE = b"temporal.api.sdk.v1.ExternalStorageReference"
# Every serialized name a rename kept (decision 7).
OLD_NAMES = {"task", "tasks", "task_id", "subtasks", "max_steps_per_task"}


def _payloads() -> Iterator[tuple[str, type[BaseModel], bytes]]:
    """(history, the payload's contract, its JSON) for the payloads whose contract is known."""
    for path in HISTORIES:
        scheduled: dict[str, str] = {}
        for event in json.loads(path.read_text())["events"]:
            found: list[tuple[type[BaseModel], dict]] = []
            if started := event.get("workflowExecutionStartedEventAttributes"):
                found = [(RunRequest, payload) for payload in started["input"]["payloads"]]
            elif continued := event.get("workflowExecutionContinuedAsNewEventAttributes"):
                found = [(RunRequest, payload) for payload in continued["input"]["payloads"]]
            elif completed := event.get("workflowExecutionCompletedEventAttributes"):
                found = [(RunResult, payload) for payload in completed.get("result", {}).get("payloads", [])]
            elif asked := event.get("activityTaskScheduledEventAttributes"):
                name = asked["activityType"]["name"]
                scheduled[event["eventId"]] = name
                if name in ACTIVITY_INPUTS:
                    found = [(ACTIVITY_INPUTS[name], payload) for payload in asked["input"]["payloads"]]
            elif done := event.get("activityTaskCompletedEventAttributes"):
                name = scheduled.get(done["scheduledEventId"], "")
                if name in ACTIVITY_RESULTS:
                    found = [(ACTIVITY_RESULTS[name], payload) for payload in done["result"]["payloads"]]
            for model, payload in found:
                yield path.name, model, _json_of(payload)


def _json_of(payload: dict) -> bytes:
    """A payload's JSON as the converter wrote it; for one held by reference (a large one: the
    snapshot a continued or forked run carries), the payload kept beside the histories."""
    data = base64.b64decode(payload["data"])
    if base64.b64decode(payload["metadata"].get("messageType", "")) == REFERENCE:
        stored = Payload.FromString((KEPT / json.loads(data)["claimData"]["sha256"]).read_bytes())
        assert stored.metadata["encoding"] == b"json/plain"
        return stored.data
    assert base64.b64decode(payload["metadata"]["encoding"]) == b"json/plain"
    return data


def test_recorded_payloads_are_written_again_byte_for_byte() -> None:
    payloads = list(_payloads())
    keys_seen: set[str] = set()
    for history, model, data in payloads:
        # As the data converter writes a value (pydantic_core.to_json).
        assert to_json(model.model_validate_json(data)) == data, (history, model.__name__)
        keys_seen |= {name for name in OLD_NAMES if f'"{name}":'.encode() in data}
    # The recorded payloads hold every kept name: the round trip above covers each rename.
    assert keys_seen == OLD_NAMES
    assert len(payloads) >= 30


SUBTASK = Subtask(id="fix", title="Fix it")


@pytest.mark.parametrize(
    ("value", "new", "old"),
    [
        (Plan(subtasks=[SUBTASK]), "subtasks", "tasks"),
        (StepRecord(step=1, subtask_id="fix", outcome="committed"), "subtask_id", "task_id"),
        (RunSnapshot(), "subtask", "task"),
        (RunSnapshot(), "plan_progress", "subtasks"),
        (RunBudget(max_steps_per_subtask=3), "max_steps_per_subtask", "max_steps_per_task"),
        (
            SubtaskOrigin(
                parent_run_id="r", parent_workspace="/w", checkpoint="a" * 40, subtask=SUBTASK, plan_version=1
            ),
            "subtask",
            "task",
        ),
        (
            MergeSubtaskInput(workspace="/w", commit="a" * 40, subtask_run_id="r.v1.fix", subtask_id="fix"),
            "subtask_id",
            "task_id",
        ),
    ],
)
def test_a_renamed_field_is_written_under_its_old_name_and_read_under_both(
    value: BaseModel, new: str, old: str
) -> None:
    written = json.loads(value.model_dump_json())
    assert old in written and new not in written
    model = type(value)
    assert model.model_validate(written) == value
    by_new_name = {**written}
    by_new_name[new] = by_new_name.pop(old)
    assert model.model_validate(by_new_name) == value


def test_every_renamed_field_reads_both_names_and_writes_the_old() -> None:
    """A field given a serialization alias in contracts is a rename (decision 7): it reads under
    its old name and its new one, and its model writes the old."""
    renamed: list[str] = []
    for name in contracts.__all__:
        model = getattr(contracts, name)
        if not (isinstance(model, type) and issubclass(model, BaseModel)):
            continue
        for field_name, field in model.model_fields.items():
            if field.serialization_alias is None:
                continue
            renamed.append(f"{name}.{field_name}")
            assert isinstance(field.validation_alias, AliasChoices), f"{name}.{field_name}"
            assert set(field.validation_alias.choices) == {field_name, field.serialization_alias}
            assert model.model_config.get("serialize_by_alias") is True, name
    for expected in ("Plan.subtasks", "StepRecord.subtask_id", "RunSnapshot.subtask", "PendingApproval.subtask_id"):
        assert expected in renamed
    assert ProposeActionInput.model_fields["subtask"].serialization_alias == "task"
    assert PendingApproval.model_fields["subtask_id"].serialization_alias == "task_id"
