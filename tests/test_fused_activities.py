"""The fused activities (activities/fused.py) decide nothing the workflow would have decided
otherwise: a read runs only when its verdict allows it, a check follows only a call that
succeeded, and a retry of a call and its check repeats no effect."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.fused import FusedActivities
from agent.conversation import load_turns
from agent.ledger.read import read_events
from contracts import (
    ActionProposal,
    CheckPostconditionsInput,
    ExecuteAndCheckInput,
    ExecuteToolInput,
    FileContains,
    LedgerEntry,
    ProposeActionInput,
    ProviderConfig,
    ReasonCode,
    RecordStepInput,
    RecordThenProposeInput,
    Turn,
    VerifyAndReadInput,
)
from contracts.script import Script
from lab.runs.catalog import Task
from tests.lab_dependencies import lab_deps

NOW = datetime(2026, 12, 2, tzinfo=UTC)


def _call(workspace: Path, tool: str, **arguments: object) -> ExecuteToolInput:
    proposal = ActionProposal(tool=tool, arguments=arguments)  # type: ignore[arg-type]
    return ExecuteToolInput(workspace=str(workspace), proposal=proposal, run_id=f"run-{uuid.uuid4().hex[:8]}", step=1)


@pytest.fixture
def fused() -> FusedActivities:
    """The fused activities as a worker registers them: methods of an object built with the
    Dependencies the worker hands its activities."""
    return FusedActivities(lab_deps())


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    (tmp_path / "notes.txt").write_text("todo\n")
    return tmp_path


async def test_an_allowed_read_is_verified_and_run(fused: FusedActivities, workspace: Path) -> None:
    done = await ActivityEnvironment().run(
        fused.verify_and_read, VerifyAndReadInput(execution=_call(workspace, "read_file", path="notes.txt"))
    )
    assert done.verdict.decision == "allow"
    assert done.result is not None and done.result.ok and "todo" in done.result.output


async def test_a_rejected_read_is_not_run(fused: FusedActivities, workspace: Path) -> None:
    escaping = _call(workspace, "read_file", path="../../etc/passwd")
    done = await ActivityEnvironment().run(fused.verify_and_read, VerifyAndReadInput(execution=escaping))
    assert done.verdict.decision == "reject"
    assert done.verdict.reason_code == ReasonCode.PATH_OUTSIDE_WORKSPACE
    assert done.result is None


async def test_only_a_read_only_tool_is_verified_and_run_locally(fused: FusedActivities, workspace: Path) -> None:
    write = _call(workspace, "write_file", path="notes.txt", content="done\n")
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(fused.verify_and_read, VerifyAndReadInput(execution=write))
    assert raised.value.type == "BadInput" and raised.value.non_retryable
    assert (workspace / "notes.txt").read_text() == "todo\n"


def _checked(workspace: Path, call: ExecuteToolInput) -> ExecuteAndCheckInput:
    check = CheckPostconditionsInput(
        workspace=str(workspace), postconditions=[FileContains(path="notes.txt", text="done")]
    )
    return ExecuteAndCheckInput(execution=call, check=check)


async def test_a_call_that_succeeded_is_checked_after(fused: FusedActivities, workspace: Path) -> None:
    write = _call(workspace, "write_file", path="notes.txt", content="done\n")
    done = await ActivityEnvironment().run(fused.execute_and_check, _checked(workspace, write))
    assert done.result.ok and not done.result.replayed
    assert done.check is not None and done.check.passed


async def test_a_call_that_failed_is_not_checked(fused: FusedActivities, workspace: Path) -> None:
    missing = _call(workspace, "replace_in_file", path="absent.txt", old="a", new="b")
    done = await ActivityEnvironment().run(fused.execute_and_check, _checked(workspace, missing))
    assert not done.result.ok
    assert done.check is None


async def test_a_retry_gets_the_recorded_call_and_checks_again(fused: FusedActivities, workspace: Path) -> None:
    """As after a worker killed between the call and its check: the call's idempotency key
    returns what it did, and the state it left is checked again."""
    write = _call(workspace, "write_file", path="notes.txt", content="done\n")
    first = await ActivityEnvironment().run(fused.execute_and_check, _checked(workspace, write))
    (workspace / "notes.txt").write_text("changed since\n")
    again = await ActivityEnvironment().run(fused.execute_and_check, _checked(workspace, write))
    assert first.result.ok and again.result.replayed
    assert (workspace / "notes.txt").read_text() == "changed since\n", "the call did not act again"
    assert again.check is not None and not again.check.passed, "the check read the state as it is"


async def test_nothing_to_check_is_not_checked(fused: FusedActivities, workspace: Path) -> None:
    write = _call(workspace, "write_file", path="notes.txt", content="done\n")
    done = await ActivityEnvironment().run(fused.execute_and_check, ExecuteAndCheckInput(execution=write))
    assert done.result.ok and done.check is None


async def test_a_steps_record_is_written_before_the_proposal_that_reads_it(
    fused: FusedActivities, bugfix_task: Task
) -> None:
    """The proposal sees the turn the record stored (the scripted model answers by how many
    turns it was shown), and the step's ledger events are on disk."""
    run_id = f"run-{uuid.uuid4().hex[:8]}"
    script = Script.model_validate(yaml.safe_load(Path(bugfix_task.script_path).read_text()))
    first, second = script.actions_for(None)[:2]
    event = LedgerEntry(event_id=f"{run_id}/step-1/proposal", type="proposal", run_id=run_id, time=NOW, step=1)
    record = RecordStepInput(
        run_id=run_id,
        workspace="",
        step=1,
        action="none",
        checkpoint="ck-0",
        entries=[event],
        turn=Turn(step=1, proposal=first, outcome="committed", feedback="ran"),
    )
    asked = ProposeActionInput(
        provider=ProviderConfig(script_path=str(bugfix_task.script_path)), goal="g", run_id=run_id
    )
    done = await ActivityEnvironment().run(
        fused.record_then_propose, RecordThenProposeInput(record=record, propose=asked)
    )
    assert done.recorded is not None and done.recorded.conversation is not None
    assert [turn.step for turn in load_turns(lab_deps().artifacts, done.recorded.conversation)] == [1]
    assert done.proposed.proposal == second
    assert [written.event_id for written in read_events(lab_deps().ledgers.path(run_id))] == [event.event_id]

    nothing_waits = await ActivityEnvironment().run(fused.record_then_propose, RecordThenProposeInput(propose=asked))
    assert nothing_waits.recorded is None and nothing_waits.proposed.proposal == first
