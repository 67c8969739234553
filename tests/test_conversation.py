"""The durable runtime's turns by reference: stored once each, chained, read back by the model
activity; a proposal's input then stays the same size however long the task has run, instead
of carrying every turn so far (O(N^2) bytes of history over a run)."""

from __future__ import annotations

from pathlib import Path

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.client import Client
from temporalio.worker import Worker

from agent.conversation import load_turns, store_turn
from contracts import ActionProposal, RunBudget, RunState, Turn
from contracts.errors import ArtifactMissing
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from tests.workflow_fakes import FakeWorld, call, request, sequence
from workflows import AgentRunWorkflow


def _turn(step: int, feedback: str = "ok") -> Turn:
    proposal = ActionProposal(tool="read_file", arguments={"path": f"f{step}.py"})
    return Turn(step=step, proposal=proposal, outcome="committed", feedback=feedback)


def test_a_chain_of_turns_reads_back_in_order(data_dir: Path) -> None:
    latest = None
    for step in range(1, 6):
        latest = store_turn(lab_deps().artifacts, latest, _turn(step))
    assert [turn.step for turn in load_turns(lab_deps().artifacts, latest)] == [1, 2, 3, 4, 5]
    assert load_turns(lab_deps().artifacts, None) == []
    # Stored again (a retried activity), a turn is the same reference and nothing new.
    first = store_turn(lab_deps().artifacts, None, _turn(1))
    assert store_turn(lab_deps().artifacts, None, _turn(1)) == first
    # The same turn after another chain is another reference: a reference names its past too.
    assert store_turn(lab_deps().artifacts, first, _turn(1)) != first


def test_a_missing_or_changed_turn_is_told_not_skipped(data_dir: Path) -> None:
    first = store_turn(lab_deps().artifacts, None, _turn(1))
    second = store_turn(lab_deps().artifacts, first, _turn(2))
    stored = lab_deps().artifacts.path_of(first)
    stored.write_bytes(stored.read_bytes().replace(b'"ok"', b'"ko"'))
    with pytest.raises(ArtifactMissing, match="does not hash to its name"):
        load_turns(lab_deps().artifacts, second)
    stored.unlink()
    with pytest.raises(ArtifactMissing, match=f"no artifact {first[:16]}"):
        load_turns(lab_deps().artifacts, second)
    assert ArtifactMissing.retryable  # another worker that shares the store may hold it


async def test_a_proposal_carries_a_reference_and_stays_the_same_size(
    client: Client, task_queue: str, data_dir: Path
) -> None:
    output = "x" * 2000  # each step's observation, as long as a real read's
    world = FakeWorld(sequence(call("run_command", command="make")), holds_after=12, output=output)
    run_request = request(RunBudget(max_steps=20, max_steps_per_subtask=20))
    async with Worker(client, task_queue=task_queue, workflows=[AgentRunWorkflow], activities=world.activities()):
        result = await execute_run(client, run_request, task_queue)
    assert result.outcome == RunState.COMPLETED and len(result.steps) == 12

    # The model activity read every earlier turn of the task back from the store.
    assert [len(asked.history) for asked in world.asked] == list(range(12))
    assert all(output in turn.feedback for turn in world.asked[-1].history)
    sizes = [
        event.ByteSize()
        async for event in client.get_workflow_handle(run_request.run_id).fetch_history_events()
        if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        and event.activity_task_scheduled_event_attributes.activity_type.name == "record_then_propose"
    ]
    assert len(sizes) == 12
    # By value the 12th would carry eleven observations of 2,000 characters; by reference it
    # differs from the 2nd by a few bytes (the step number, the reference). (From the 2nd on,
    # the input also carries the last step's record, and is itself kept by reference.)
    assert max(sizes[1:]) - min(sizes[1:]) < 100, sizes
    assert max(sizes) < 4000, sizes
