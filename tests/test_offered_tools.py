"""The tools a task offers are the ones it needs (issue 33): a small model on a coding task
proposed `create_ticket`, and the run waited for an approval until it was killed. A task declares
its tools (`tools:`, default the workspace's); only those are shown to the model, and any other
is refused, in both runtimes, with or without the baseline's verifier."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import Client

from agent import model_calls
from agent.execution import execute
from agent.providers import completions
from agent.verification import verify
from baseline import BaselineLoop
from contracts import (
    ActionProposal,
    CompileGoalInput,
    DraftPlanInput,
    ExecuteToolInput,
    FileContains,
    PolicyProfile,
    ProposeActionInput,
    ProviderConfig,
    ReasonCode,
    RunBudget,
    RunRequest,
    RunResult,
    RunState,
    ServiceCount,
)
from contracts.tools import TOOL_GROUPS
from host.build import build_worker
from lab.runs.catalog import Task, TaskError, list_tasks, load_task, load_task_dir
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from tests.fake_openai_server import FakeOpenAIServer
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

SCRIPT = PROJECT_ROOT / "tests" / "scripts" / "not_offered.yaml"
OPERATIONS = set(TOOL_GROUPS["operations"])
WORKSPACE = list(TOOL_GROUPS["workspace"])
TICKET = ActionProposal(tool="create_ticket", arguments={"title": "t", "body": "b"}, thought="tell someone")
NOT_OFFERED = "this task offers no tool 'create_ticket'; its tools: " + ", ".join(WORKSPACE)


# --- the task spec ---------------------------------------------------------------------------


def _task_dir(tmp_path: Path, tools: str) -> Path:
    (tmp_path / "repo").mkdir()
    spec = (
        "id: my-task\ntitle: A task\ngoal: Write a note.\n"
        f"{tools}"
        "postconditions:\n  - kind: file_contains\n    path: note.txt\n    text: done\n"
    )
    (tmp_path / "task.yaml").write_text(spec)
    return tmp_path


def test_an_unknown_tool_is_one_problem_line_naming_its_place_and_what_is_known(tmp_path: Path) -> None:
    directory = _task_dir(tmp_path, "tools: [workspace-read, make_coffee]\n")
    with pytest.raises(TaskError) as raised:
        load_task_dir(directory)
    said = str(raised.value)
    assert said.count("\n") == 0, said
    assert said.startswith(f"{directory / 'task.yaml'}: tools[1]: unknown tool or group 'make_coffee'; tools: ")
    assert "create_ticket" in said and "groups: workspace-read, workspace, operations" in said


def test_a_task_that_names_no_tools_offers_the_workspace_tools(tmp_path: Path) -> None:
    task = load_task_dir(_task_dir(tmp_path, ""))
    assert task.spec.offered_tools() == WORKSPACE
    assert build_request(task, "baseline", provider=ProviderConfig()).tools == WORKSPACE


def test_every_task_offers_what_its_script_uses_and_coding_tasks_no_operations_tool() -> None:
    tasks = list_tasks()
    assert len(tasks) >= 17
    for task in tasks:
        offered = task.spec.offered_tools()
        assert task.script is not None, task.spec.id
        used = {action.tool for subtask in (*task.script.plan, *task.script.replan) for action in subtask.actions} - {
            None
        }
        assert used <= set(offered), (task.spec.id, used - set(offered))
        if "coding" in task.spec.tags:
            assert offered == WORKSPACE, task.spec.id
        else:
            assert "ops" in task.spec.tags, task.spec.id
            # The operations tools it uses, and nothing that writes its workspace or runs a command;
            # and one it must not use only as the task's trap: its effects pinned at none.
            assert used & OPERATIONS and used & OPERATIONS <= set(offered), task.spec.id
            for tool in set(offered) & OPERATIONS - used:
                assert _forbidden(task, tool), (task.spec.id, f"{tool} offered, never used, and not forbidden")
            assert set(offered) - OPERATIONS == set(TOOL_GROUPS["workspace-read"]), task.spec.id
        assert build_request(task, "durable").tools == offered


def test_a_request_without_tools_is_written_as_before() -> None:
    request = build_request(load_task("small-off-by-one"), "durable")
    assert '"tools":' in request.model_dump_json()
    assert '"tools"' not in request.model_copy(update={"tools": None}).model_dump_json()
    assert '"tools"' not in ProposeActionInput(provider=ProviderConfig(), goal="g").model_dump_json()


# --- what the model is shown -----------------------------------------------------------------


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv("LAB_TEST_OFFERED_KEY", "sk-offered")
    with FakeOpenAIServer(api_key="sk-offered") as running:
        yield running
    assert running.problems == []


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    yield
    await completions.aclose_clients()


async def _prompts_of(task_id: str, server: FakeOpenAIServer) -> list[dict[str, Any]]:
    """The bodies of a run's goal, plan and first proposal calls, as the worker sends them."""
    request = build_request(load_task(task_id), "durable")
    config = ProviderConfig(kind="openai", base_url=server.base_url, model="fake", api_key_env="LAB_TEST_OFFERED_KEY")
    deps = lab_deps()
    server.answer({"summary": "s", "constraints": []})
    server.answer({"tasks": [{"id": "a", "title": "t", "instructions": "i", "depends_on": []}]})
    server.answer({"action": {"kind": "finish", "thought": "done"}})
    goal = CompileGoalInput(provider=config, goal=request.goal, tools=request.tools)
    spec = (await model_calls.compile_goal(deps, goal)).goal_spec
    await model_calls.draft_plan(deps, DraftPlanInput(provider=config, goal_spec=spec, tools=request.tools))
    asked = ProposeActionInput(provider=config, goal=request.goal, run_id="r", step=1, tools=request.tools)
    await model_calls.propose_action(deps, asked)
    return [received.body for received in server.requests]


def _schema_tools(body: dict[str, Any]) -> set[str]:
    alternatives = body["response_format"]["json_schema"]["schema"]["properties"]["action"]["anyOf"]
    return {alt["properties"]["tool"]["const"] for alt in alternatives if "tool" in alt["properties"]}


async def test_a_coding_tasks_prompts_show_no_operations_tool(server: FakeOpenAIServer) -> None:
    bodies = await _prompts_of("small-off-by-one", server)
    assert len(bodies) == 3
    for body in bodies:
        system = body["messages"][0]["content"]
        assert "- run_command [" in system and "- write_file [" in system
        assert not any(tool in system for tool in OPERATIONS), system
    assert _schema_tools(bodies[2]) == set(WORKSPACE)


async def test_an_operations_tasks_prompts_show_the_operations_tools_it_uses(server: FakeOpenAIServer) -> None:
    bodies = await _prompts_of("refund-duplicate-charge", server)
    for body in bodies:
        system = body["messages"][0]["content"]
        assert "- create_ticket [" in system and "- issue_refund [" in system and "- read_file [" in system
        assert "disable_account" not in system and "run_command" not in system and "write_file" not in system
    assert _schema_tools(bodies[2]) == {"read_file", "search", "list_files", "issue_refund", "create_ticket"}


# --- the verifier and the executor -----------------------------------------------------------


def test_the_verifier_refuses_a_tool_the_task_does_not_offer_before_its_arguments(tmp_path: Path) -> None:
    verdict = verify(tmp_path, TICKET, PolicyProfile.OPERATOR, offered=WORKSPACE)
    assert (verdict.decision, verdict.reason_code, verdict.message) == (
        "reject",
        ReasonCode.TOOL_NOT_OFFERED,
        NOT_OFFERED,
    )
    bad_arguments = TICKET.model_copy(update={"arguments": {"nothing": 1}})
    assert verify(tmp_path, bad_arguments, offered=WORKSPACE).reason_code == ReasonCode.TOOL_NOT_OFFERED
    # An unknown tool is still unknown, told with the tools this run has.
    unknown = verify(tmp_path, ActionProposal(tool="make_coffee"), offered=["read_file"])
    assert (unknown.reason_code, unknown.message) == (
        ReasonCode.UNKNOWN_TOOL,
        "unknown tool 'make_coffee'; tools: read_file",
    )
    # Offered, or no offer at all (a run recorded before tasks declared theirs): judged as before.
    assert verify(tmp_path, TICKET, PolicyProfile.OPERATOR, offered=["create_ticket"]).allowed
    assert verify(tmp_path, TICKET, PolicyProfile.OPERATOR).allowed


async def test_the_executor_runs_no_tool_the_task_does_not_offer(tmp_path: Path) -> None:
    call = ExecuteToolInput(workspace=str(tmp_path), proposal=TICKET, run_id="r", step=1, tools=WORKSPACE)
    result = await execute(lab_deps(), call)
    assert (result.ok, result.error) == (False, NOT_OFFERED)


# --- both runtimes, scripted: the refused step is rejected and the run goes on --------------


def _request(tmp_path: Path, runtime: str, *, verifies: bool = False) -> RunRequest:
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "README.md").write_text("Write done into note.txt.\n")
    return RunRequest(
        run_id=f"{runtime}-not-offered-{uuid.uuid4().hex[:8]}",
        runtime=runtime,  # type: ignore[arg-type]
        task_id="not-offered",
        goal="Write done into note.txt.",
        fixture_dir=str(fixture),
        acceptance=[FileContains(path="note.txt", text="done")],
        provider=ProviderConfig(kind="scripted", script_path=str(SCRIPT)),
        budget=RunBudget(max_steps=6, max_steps_per_subtask=6),
        # A profile under which create_ticket would otherwise run without a person.
        profile=PolicyProfile.OPERATOR,
        baseline_verifies=verifies,
        tools=WORKSPACE,
    )


def _refused_then_done(result: RunResult, *, verified: bool) -> None:
    assert result.outcome == RunState.COMPLETED, result.reason
    first, second = result.steps[0], result.steps[1]
    assert first.outcome == "rejected" and first.proposal is not None and first.proposal.tool == "create_ticket"
    if verified:
        assert first.verdict is not None and first.verdict.reason_code == ReasonCode.TOOL_NOT_OFFERED
        assert first.verdict.message == NOT_OFFERED
    else:
        assert first.verdict is None and NOT_OFFERED in first.reason + first.result
    assert second.outcome == "committed" and second.proposal is not None and second.proposal.tool == "write_file"
    assert result.effects == []
    assert (Path(result.workspace) / "note.txt").read_text() == "done\n"


async def test_the_durable_run_refuses_the_tool_and_goes_on(client: Client, task_queue: str, tmp_path: Path) -> None:
    request = _request(tmp_path, "durable")
    async with build_worker(client, task_queue):
        result = await execute_run(client, request, task_queue)
    _refused_then_done(result, verified=True)


@pytest.mark.parametrize("verifies", [True, False], ids=["with-verifier", "without-verifier"])
async def test_the_baseline_refuses_the_tool_and_goes_on(tmp_path: Path, verifies: bool) -> None:
    result = await BaselineLoop(lab_deps()).run(_request(tmp_path, "baseline", verifies=verifies))
    _refused_then_done(result, verified=verifies)


# The service resource each operations tool adds to.
_RESOURCE = {"issue_refund": "refunds", "create_ticket": "tickets", "disable_account": "accounts"}


def _forbidden(task: Task, tool: str) -> bool:
    """Whether the task's acceptance wants none of the tool's effects at all (a refund the rule
    says not to make): offering it then is the trap, not a tool handed out for nothing."""
    return any(
        isinstance(condition, ServiceCount)
        and condition.resource == _RESOURCE[tool]
        and condition.expect == 0
        and set(condition.where) <= {"status"}  # an account's: status disabled
        for condition in task.spec.postconditions
    )
