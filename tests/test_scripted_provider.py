"""The scripted provider, and the model activities that wrap any provider."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import yaml
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.fused import FusedActivities
from activities.model_calls import ModelActivities
from agent.providers.scripted import ScriptedProvider
from contracts import (
    ActionProposal,
    CommandExitCode,
    CompileGoalInput,
    DraftPlanInput,
    FileContains,
    GoalSpec,
    ProposeActionInput,
    ProposeActionResult,
    ProviderConfig,
    RecordThenProposeInput,
    Subtask,
    Turn,
)
from contracts.errors import ScriptError
from contracts.script import Script
from lab.runs.catalog import Task
from tests.lab_dependencies import lab_deps

# Tasks declared out of dependency order, with a `finish` and a `give_up` before the end.
OUT_OF_ORDER_SCRIPT = """
goal:
  summary: Do two things.
plan:
  - id: second
    title: Second
    depends_on: [first]
    actions:
      - tool: read_file
        arguments: {path: b.txt}
      - kind: finish
  - id: first
    title: First
    actions:
      - tool: read_file
        arguments: {path: a.txt}
      - kind: finish
        thought: first is done
      - tool: list_files
      - kind: give_up
"""

CYCLIC_SCRIPT = """
goal:
  summary: Chase your tail.
plan:
  - id: a
    title: A
    depends_on: [b]
  - id: b
    title: B
    depends_on: [a]
"""


async def propose_through_the_worker(request: ProposeActionInput) -> ProposeActionResult:
    """A proposal as a worker makes it: `record_then_propose`, with no record waiting."""
    recorded = await FusedActivities(lab_deps()).record_then_propose(RecordThenProposeInput(propose=request))
    return recorded.proposed


def write_script(tmp_path: Path, text: str, name: str = "script.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def request(script: Path, *, task: Subtask | None = None, turns: int = 0, foreign: int = 0) -> ProposeActionInput:
    """A request after the script's first `turns` proposals, then `foreign` turns it did not
    propose (unusable answers, as an injected fault would leave)."""
    own = []
    if turns:
        parsed = Script.model_validate(yaml.safe_load(script.read_text()))
        own = parsed.actions_for(task.id if task and parsed.has_subtask(task.id) else None)
    history = [
        Turn(step=i + 1, proposal=own[i], outcome="committed", feedback="-") for i in range(min(turns, len(own)))
    ]
    history += [Turn(step=len(history) + 1, proposal=None, outcome="rejected", feedback="-") for _ in range(foreign)]
    return ProposeActionInput(
        provider=ProviderConfig(script_path=str(script)), goal="the goal", subtask=task, history=history
    )


async def proposals(script: Path, task: Subtask | None, count: int) -> list[ActionProposal]:
    provider = ScriptedProvider(str(script))
    found = []
    for turns in range(count):
        proposal = (await provider.propose(request(script, task=task, turns=turns), [])).proposal
        assert proposal is not None
        found.append(proposal)
    return found


async def test_a_turn_the_script_did_not_propose_does_not_move_it_on(rename_task: Task) -> None:
    provider = ScriptedProvider(str(rename_task.script_path))
    task = Subtask(id="update-callers", title="Update callers")
    after_glitches = await provider.propose(request(rename_task.script_path, task=task, turns=2, foreign=3), [])
    clean = await provider.propose(request(rename_task.script_path, task=task, turns=2), [])
    assert after_glitches.proposal == clean.proposal


async def test_a_step_failed_by_an_injected_fault_is_proposed_again(rename_task: Task) -> None:
    provider = ScriptedProvider(str(rename_task.script_path))
    task = Subtask(id="update-callers", title="Update callers")
    done = request(rename_task.script_path, task=task, turns=2)
    failed = done.history[-1].model_copy(update={"outcome": "rejected", "fault_injected": True})
    retry = done.model_copy(update={"history": [*done.history[:-1], failed]})
    after_failure = await provider.propose(retry, [])
    second = await provider.propose(request(rename_task.script_path, task=task, turns=1), [])
    assert after_failure.proposal == second.proposal == done.history[-1].proposal
    # Failed on its own, or turned down by the verifier or a person: the script goes on.
    refused = done.history[-1].model_copy(update={"outcome": "rejected"})
    moved_on = await provider.propose(done.model_copy(update={"history": [*done.history[:-1], refused]}), [])
    assert moved_on.proposal == (await provider.propose(done, [])).proposal


# --- ScriptedProvider ----------------------------------------------------------------------


async def test_position_follows_history_length(rename_task: Task) -> None:
    provider = ScriptedProvider(str(rename_task.script_path))
    task = Subtask(id="update-callers", title="Update callers")
    third = await provider.propose(request(rename_task.script_path, task=task, turns=2), [])
    assert third.proposal is not None
    assert third.proposal.arguments == {"path": "tests/test_pricing.py", "old": "calc_total", "new": "order_total"}
    # The same request again gets the same answer: no hidden position state.
    again = await provider.propose(request(rename_task.script_path, task=task, turns=2), [])
    assert again.proposal == third.proposal


async def test_actions_follow_the_plan_task(rename_task: Task) -> None:
    definition = await proposals(rename_task.script_path, Subtask(id="rename-definition", title="t"), 3)
    assert [p.tool for p in definition] == ["run_command", "replace_in_file", "replace_in_file"]
    assert definition[1].arguments["path"] == "shop/pricing.py"
    callers = await proposals(rename_task.script_path, Subtask(id="update-callers", title="t"), 6)
    assert callers[0].arguments["path"] == "shop/cart.py"
    assert callers[-1].kind == "finish"


async def test_a_plan_task_the_script_did_not_draft_gets_its_whole_course(rename_task: Task) -> None:
    """A model's plan (a fork of a model's run, answered by the oracle from step K+1): the
    script's every tool call in plan order, then one finish, as for a loop without a plan."""
    foreign = await proposals(rename_task.script_path, Subtask(id="T1", title="the model's"), 16)
    planless = await proposals(rename_task.script_path, None, 16)
    assert foreign == planless
    assert [p.kind for p in foreign].count("finish") == 1


async def test_without_task_tool_calls_come_in_topological_order_then_one_finish(tmp_path: Path) -> None:
    script = write_script(tmp_path, OUT_OF_ORDER_SCRIPT)
    steps = await proposals(script, None, 5)
    assert [(p.kind, p.tool) for p in steps] == [
        ("tool_call", "read_file"),
        ("tool_call", "list_files"),
        ("tool_call", "read_file"),
        ("finish", None),
        ("give_up", None),
    ]
    assert [p.arguments.get("path") for p in steps[:3]] == ["a.txt", None, "b.txt"]


async def test_without_task_shipped_script_flattens_every_task(rename_task: Task) -> None:
    steps = await proposals(rename_task.script_path, None, 10)
    assert [p.kind for p in steps] == ["tool_call"] * 8 + ["finish", "give_up"]
    # rename-definition's calls come before update-callers'.
    assert steps[1].arguments["path"] == "shop/pricing.py"
    assert steps[3].arguments["path"] == "shop/cart.py"


async def test_past_the_end_gives_up(bugfix_task: Task) -> None:
    provider = ScriptedProvider(str(bugfix_task.script_path))
    task = Subtask(id="fix-median", title="t")
    result = await provider.propose(request(bugfix_task.script_path, task=task, turns=50), [])
    assert result.proposal is not None
    assert result.proposal.kind == "give_up"


async def test_usage_counts_one_call_with_token_estimates(bugfix_task: Task) -> None:
    provider = ScriptedProvider(str(bugfix_task.script_path))
    for usage in [
        (await provider.propose(request(bugfix_task.script_path), [])).usage,
        (await provider.interpret_goal("a goal")).usage,
        (await provider.draft_plan("a goal", "a summary", [])).usage,
    ]:
        assert usage.model_calls == 1
        assert usage.input_tokens > 0 and usage.output_tokens > 0
        assert usage.provider == "scripted"


async def test_interpret_goal_and_draft_plan_come_from_the_script(rename_task: Task) -> None:
    provider = ScriptedProvider(str(rename_task.script_path))
    goal = (await provider.interpret_goal("whatever")).value
    assert goal.summary.startswith("Rename calc_total to order_total")
    assert len(goal.constraints) == 2
    drafted = (await provider.draft_plan("g", "s", [])).value
    assert [task.id for task in drafted.subtasks] == ["rename-definition", "update-callers"]
    assert drafted.subtasks[1].depends_on == ["rename-definition"]


async def test_missing_script_raises_script_error_with_path(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ScriptError, match="script not found") as raised:
        await ScriptedProvider(str(missing)).interpret_goal("g")
    assert str(missing) in str(raised.value)


async def test_invalid_yaml_raises_script_error_with_path(tmp_path: Path) -> None:
    script = write_script(tmp_path, "goal: [unclosed\n")
    with pytest.raises(ScriptError, match="not valid YAML") as raised:
        await ScriptedProvider(str(script)).interpret_goal("g")
    assert str(script) in str(raised.value)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("goal: {summary: s}\nplan: []\n", "plan"),
        ("plan: [{id: a, title: A}]\n", "goal"),
        ("goal: {summary: s}\nplan: [{id: a, title: A}]\nextra: 1\n", "extra"),
        ("goal: {summary: s}\nplan: [{id: a, title: A, actions: [{kind: dance}]}]\n", "plan[0].actions[0].kind"),
    ],
)
async def test_script_failing_validation_raises_script_error_with_path(tmp_path: Path, text: str, where: str) -> None:
    script = write_script(tmp_path, text)
    with pytest.raises(ScriptError) as raised:
        await ScriptedProvider(str(script)).interpret_goal("g")
    assert str(raised.value).startswith(f"{script}: {where}: ")


async def test_cyclic_plan_script_raises_script_error(tmp_path: Path) -> None:
    script = write_script(tmp_path, CYCLIC_SCRIPT)
    with pytest.raises(ScriptError, match=re.escape(str(script))):
        await ScriptedProvider(str(script)).draft_plan("g", "s", [])


async def test_a_cyclic_script_is_refused_by_every_provider_call(tmp_path: Path) -> None:
    script = write_script(tmp_path, CYCLIC_SCRIPT)
    provider = ScriptedProvider(str(script))
    with pytest.raises(ScriptError, match="cycle"):
        await provider.interpret_goal("g")
    with pytest.raises(ScriptError, match="cycle"):
        await provider.propose(request(script), [])


# --- model activities ----------------------------------------------------------------------


async def test_compile_goal_keeps_the_requests_acceptance(rename_task: Task) -> None:
    acceptance = [CommandExitCode(command="python -m pytest -q"), FileContains(path="shop/pricing.py", text="x")]
    compiled = await ActivityEnvironment().run(
        ModelActivities(lab_deps()).compile_goal,
        CompileGoalInput(
            provider=ProviderConfig(script_path=str(rename_task.script_path)), goal="rename it", acceptance=acceptance
        ),
    )
    spec = compiled.goal_spec
    assert spec.acceptance == acceptance
    assert spec.goal == "rename it"
    assert spec.summary.startswith("Rename calc_total")
    assert compiled.usage.model_calls == 1


async def test_compile_goal_cannot_add_acceptance(rename_task: Task) -> None:
    config = ProviderConfig(script_path=str(rename_task.script_path))
    compiled = await ActivityEnvironment().run(
        ModelActivities(lab_deps()).compile_goal, CompileGoalInput(provider=config, goal="g")
    )
    assert compiled.goal_spec.acceptance == []


async def test_plan_activity_returns_the_scripted_plan(bugfix_task: Task) -> None:
    config = ProviderConfig(script_path=str(bugfix_task.script_path))
    result = await ActivityEnvironment().run(
        ModelActivities(lab_deps()).draft_plan,
        DraftPlanInput(provider=config, goal_spec=GoalSpec(goal="g", summary="s")),
    )
    assert [task.id for task in result.plan.subtasks] == ["fix-median"]
    assert result.usage.model_calls == 1


async def test_propose_action_activity_follows_the_script(bugfix_task: Task) -> None:
    result = await ActivityEnvironment().run(
        propose_through_the_worker,
        request(bugfix_task.script_path, task=Subtask(id="fix-median", title="t")),
    )
    assert result.proposal is not None
    assert result.proposal.arguments == {"command": "python -m pytest -q"}


def _non_retryable_script_error(raised: pytest.ExceptionInfo[ApplicationError], path: Path) -> None:
    assert raised.value.type == "ScriptError"
    assert raised.value.non_retryable
    assert str(path) in raised.value.message


async def test_compile_goal_script_error_is_non_retryable_application_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            ModelActivities(lab_deps()).compile_goal,
            CompileGoalInput(provider=ProviderConfig(script_path=str(missing)), goal="g"),
        )
    _non_retryable_script_error(raised, missing)


async def test_plan_script_error_is_non_retryable_application_error(tmp_path: Path) -> None:
    broken = write_script(tmp_path, "goal: [unclosed\n")
    goal_spec = GoalSpec(goal="g", summary="s")
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            ModelActivities(lab_deps()).draft_plan,
            DraftPlanInput(provider=ProviderConfig(script_path=str(broken)), goal_spec=goal_spec),
        )
    _non_retryable_script_error(raised, broken)


async def test_propose_action_script_error_is_non_retryable_application_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(propose_through_the_worker, request(missing))
    _non_retryable_script_error(raised, missing)


async def test_missing_script_path_is_non_retryable_script_error() -> None:
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            ModelActivities(lab_deps()).compile_goal, CompileGoalInput(provider=ProviderConfig(), goal="g")
        )
    assert raised.value.type == "ScriptError"
    assert raised.value.non_retryable


async def test_plan_with_cyclic_script_is_non_retryable_script_error(tmp_path: Path) -> None:
    script = write_script(tmp_path, CYCLIC_SCRIPT)
    goal_spec = GoalSpec(goal="g", summary="s")
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            ModelActivities(lab_deps()).draft_plan,
            DraftPlanInput(provider=ProviderConfig(script_path=str(script)), goal_spec=goal_spec),
        )
    _non_retryable_script_error(raised, script)
