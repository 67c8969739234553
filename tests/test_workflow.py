"""AgentRunWorkflow against the time-skipping test server, with every activity mocked.

Mocks are registered under the real activities' names; the workflow code runs unchanged.
"""

from __future__ import annotations

import asyncio

import pytest
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from contracts import (
    ActionProposal,
    CommandExitCode,
    ProposeActionInput,
    ProposeActionResult,
    ReasonCode,
    RunBudget,
    RunState,
    Subtask,
    Verdict,
)
from tests.workflow_fakes import DONE, ONE_CALL, FakeWorld, call, request, run, sequence
from workflows import AgentRunWorkflow
from workflows.outcome import run_result


async def test_happy_path_commits_and_accepts(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(call("write_file", path="a.txt", content="x")))
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED
    assert [(s.step, s.outcome) for s in result.steps] == [(1, "committed")]
    assert result.plan == ["only"]
    assert result.acceptance is not None and result.acceptance.passed
    # compile + plan + one proposal, every attempt counted
    assert result.usage.model_calls == 3 and result.usage.input_tokens == 30


async def test_a_rejection_is_fed_back_to_the_model(client: Client, task_queue: str) -> None:
    def verdict(proposal: ActionProposal) -> Verdict:
        if proposal.tool == "rm_everything":
            return Verdict(decision="reject", reason_code=ReasonCode.UNKNOWN_TOOL, message="no such tool")
        return Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)

    world = FakeWorld(sequence(call("rm_everything"), call("write_file", path="a", content="b")), verdict=verdict)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED
    assert [s.outcome for s in result.steps] == ["rejected", "committed"]
    assert result.steps[0].verdict is not None and result.steps[0].verdict.reason_code == ReasonCode.UNKNOWN_TOOL
    # The rejected proposal never ran, and the model saw why it was rejected.
    assert [p.tool for p in world.executed] == ["write_file"]
    second = world.asked[1].history
    assert len(second) == 1 and second[0].outcome == "rejected" and "no such tool" in second[0].feedback


async def test_an_unusable_answer_is_rejected_with_feedback(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(None, call("write_file", path="a", content="b")))
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED
    assert result.steps[0].outcome == "rejected" and result.steps[0].proposal is None
    assert "unusable answer" in world.asked[1].history[0].feedback


async def test_a_claim_of_done_is_checked_not_believed(client: Client, task_queue: str) -> None:
    finish = ActionProposal(kind="finish", thought="surely done")
    world = FakeWorld(sequence(finish, call("write_file", path="a", content="b")), holds_after=1)
    result = await run(client, task_queue, world)
    assert [s.outcome for s in result.steps] == ["rejected", "committed"]
    assert "claimed done, but" in result.steps[0].reason
    assert result.outcome == RunState.COMPLETED


async def test_a_status_unchanged_since_the_last_step_is_not_told_again(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(call("run_command", command="true")), holds_after=3)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED
    told = [turn.feedback.splitlines()[-1] for turn in world.asked[-1].history]
    assert told[0] == "- not yet: `true` exits 0"
    assert told[1] == "Task postconditions: as before, 0/1 postconditions hold."


async def test_a_step_that_only_read_runs_locally_and_is_not_checked_again(client: Client, task_queue: str) -> None:
    reads = [call("read_file", path="a.py"), call("search", pattern="x"), call("list_files")]
    steps = [call("run_command", command="make"), *reads, call("write_file", path="a.py", content="x")]

    def answer(asked: ProposeActionInput) -> ProposeActionResult:
        return ProposeActionResult(proposal=steps[len(asked.history)], usage=ONE_CALL)

    world = FakeWorld(answer, holds_after=len(steps))
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED
    assert [s.outcome for s in result.steps] == ["committed"] * len(steps)
    assert world.read_only == reads and world.executed == steps
    # Checked after the command and after the write, and once more for acceptance; the reads
    # left the workspace as the command's check found it, and the model is told so.
    assert world.checks == 3
    told = [turn.feedback.splitlines()[-1] for turn in world.asked[-1].history]
    assert told[1:] == ["Task postconditions: as before, 0/1 postconditions hold."] * len(reads)
    assert [s.postconditions for s in result.steps[1:4]] == ["", "", ""]
    # Each read verified with its run, each write executed with its check: one activity each;
    # and each step's record written with the next proposal, but the last one's.
    stepped = [name for name in world.fused if name != "record_then_propose"]
    assert stepped == ["execute_and_check", *["verify_and_read"] * len(reads), "execute_and_check"]
    assert world.fused.count("record_then_propose") == len(steps)
    assert [closing.step for closing in world.recorded] == list(range(1, len(steps) + 1))


async def test_a_read_the_verifier_refuses_is_not_run(client: Client, task_queue: str) -> None:
    def verdict(proposal: ActionProposal) -> Verdict:
        if proposal.arguments.get("path") == "secret":
            return Verdict(decision="reject", reason_code=ReasonCode.PATH_OUTSIDE_WORKSPACE, message="outside")
        return Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)

    steps = [call("read_file", path="secret"), call("write_file", path="a.py", content="x")]
    world = FakeWorld(sequence(*steps), verdict=verdict)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED
    assert [s.outcome for s in result.steps] == ["rejected", "committed"]
    assert world.read_only == [] and world.executed == [steps[1]]
    assert (
        result.steps[0].verdict is not None and result.steps[0].verdict.reason_code == ReasonCode.PATH_OUTSIDE_WORKSPACE
    )


async def test_a_read_first_in_a_task_is_checked(client: Client, task_queue: str) -> None:
    """No check yet describes the workspace: a task whose postconditions already hold ends
    after its first read."""
    world = FakeWorld(sequence(call("read_file", path="a.py")), holds_after=1)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED and len(result.steps) == 1
    assert world.read_only == [call("read_file", path="a.py")]


async def test_the_task_step_budget_ends_the_run(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(call("run_command", command="true")), holds_after=99)
    result = await run(client, task_queue, world, RunBudget(max_steps=10, max_steps_per_subtask=3))
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert len(result.steps) == 3 and len(world.executed) == 3
    assert "the subtask's budget of 3 steps is spent" in result.reason
    # The last step's record waited for a next proposal that never came: the run's end wrote it.
    assert [closing.step for closing in world.recorded] == [1, 2, 3]
    assert result.checkpoint == "ck-3"
    assert [entry.type for entry in world.ledger][-1] == "run_finished"


async def test_the_run_step_budget_spans_tasks(client: Client, task_queue: str) -> None:
    never = CommandExitCode(command="false")  # the fake check never passes this one
    tasks = [
        Subtask(id="first", title="t", postconditions=[DONE]),
        Subtask(id="second", title="t", depends_on=["first"], postconditions=[never]),
    ]
    world = FakeWorld(sequence(call("run_command", command="true")), tasks=tasks, holds_after=2)
    result = await run(client, task_queue, world, RunBudget(max_steps=3, max_steps_per_subtask=10))
    assert result.outcome == RunState.BUDGET_EXHAUSTED
    assert [s.subtask_id for s in result.steps] == ["first", "first", "second"]
    assert "the run's budget of 3 steps is spent" in result.reason


async def test_tasks_run_in_dependency_order(client: Client, task_queue: str) -> None:
    tasks = [
        Subtask(id="second", title="t", depends_on=["first"], postconditions=[DONE]),
        Subtask(id="first", title="t", postconditions=[DONE]),
    ]
    world = FakeWorld(sequence(call("write_file", path="a", content="b")), tasks=tasks, holds_after=0)
    result = await run(client, task_queue, world)
    assert result.plan == ["first", "second"]
    assert [r.subtask.id for r in world.asked if r.subtask] == ["first", "second"]
    # Each task starts with a clean slate: the model does not see the previous task's turns.
    assert all(r.history == [] for r in world.asked)


async def test_giving_up_fails_the_run(client: Client, task_queue: str) -> None:
    world = FakeWorld(sequence(ActionProposal(kind="give_up", thought="no idea")))
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.FAILED
    assert "gave up" in result.reason and "no idea" in result.reason
    assert world.executed == []


async def test_a_non_retryable_activity_error_fails_the_run_with_its_cause(client: Client, task_queue: str) -> None:
    world = FakeWorld(
        sequence(call("write_file", path="a", content="b")),
        execute_error=ApplicationError("disk on fire", type="WorkspaceError", non_retryable=True),
    )
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.FAILED
    assert "execute_and_check failed" in result.reason and "WorkspaceError: disk on fire" in result.reason


async def test_failed_acceptance_fails_the_run(client: Client, task_queue: str) -> None:
    # The task has no postconditions: it ends on a (checked, vacuous) finish; acceptance then fails.
    tasks = [Subtask(id="only", title="t")]
    world = FakeWorld(sequence(ActionProposal(kind="finish")), tasks=tasks, holds_after=1)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.FAILED
    assert result.reason.startswith("acceptance failed")
    assert result.acceptance is not None and not result.acceptance.passed


async def test_progress_query_shows_state_and_steps_while_running(client: Client, task_queue: str) -> None:
    release = asyncio.Event()
    loop = asyncio.get_running_loop()

    def slow_second(request: ProposeActionInput) -> ProposeActionResult:
        if len(request.history) == 1:
            asyncio.run_coroutine_threadsafe(release.wait(), loop).result()
        return ProposeActionResult(proposal=call("write_file", path="a", content="b"), usage=ONE_CALL)

    world = FakeWorld(slow_second, holds_after=2)
    run_request = request()
    async with Worker(client, task_queue=task_queue, workflows=[AgentRunWorkflow], activities=world.activities()):
        handle = await client.start_workflow(
            AgentRunWorkflow.run, run_request, id=run_request.run_id, task_queue=task_queue
        )
        for _ in range(200):
            progress = await handle.query(AgentRunWorkflow.progress, 0)
            if progress.step == 2:
                break
            await asyncio.sleep(0.05)
        assert progress.state == RunState.PROPOSING and progress.subtask.id == "only"
        assert [s.step for s in progress.steps] == [1]
        assert (await handle.query(AgentRunWorkflow.progress, 1)).steps == []
        release.set()
        result = await run_result(handle)
    assert result.outcome == RunState.COMPLETED and len(result.steps) == 2


@pytest.mark.parametrize("kind", ["finish", "give_up"])
async def test_non_tool_proposals_never_execute(client: Client, task_queue: str, kind: str) -> None:
    world = FakeWorld(sequence(ActionProposal(kind=kind)), holds_after=0)  # type: ignore[arg-type]
    await run(client, task_queue, world)
    assert world.executed == []


async def test_a_check_is_retried_however_often_its_workers_die(client: Client, task_queue: str) -> None:
    """A check only reads: its retries are bounded by time, not counted (the soak killed the
    worker under one check six times in a row, and the run failed on its sixth attempt)."""
    world = FakeWorld(sequence(call("write_file", path="a", content="b")), lost_checks=12)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED, result.reason
    assert world.lost_checks == 0


async def test_a_write_and_its_check_are_retried_however_often_their_workers_die(
    client: Client, task_queue: str
) -> None:
    world = FakeWorld(sequence(call("write_file", path="a", content="b")), lost_executions=12)
    result = await run(client, task_queue, world)
    assert result.outcome == RunState.COMPLETED, result.reason
    assert world.fused.count("execute_and_check") == 13
