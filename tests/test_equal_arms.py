"""Arms that differ only in the mechanism under test (issue 34): what the model is told of the
task's acceptance checks (`show_acceptance`), and how often a model or tool call is tried
(`retries`), are one setting each that both runtimes honour. Unset, each runtime is as before:
the durable model is told the checks, the baseline's is not."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio import activity
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from activities.registered import all_activities
from agent.providers import completions
from baseline import BaselineLoop
from baseline import loop as baseline_loop
from contracts import (
    ExecuteAndCheckInput,
    ExecutedAndChecked,
    ExecuteToolInput,
    FileContains,
    ProviderConfig,
    RetryBudget,
    RunBudget,
    RunRequest,
    RunResult,
    RunState,
    ToolResult,
)
from contracts import activity_names as named
from contracts.errors import ToolUnavailable
from experiments.config import ExperimentConfig, FaultScenario
from experiments.report.arms_setup import information_and_retries
from experiments.trials.spec import Lab, TrialSpec, request_for
from host.build import build_worker
from lab.runs.catalog import load_task
from tests.fake_openai_server import FakeOpenAIServer
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from workflows import activity_options

KEY_ENV = "LAB_TEST_EQUAL_ARMS_KEY"
DONE_WHEN = "It is done when:\n- note.txt contains 'done'"
NOT_YET = "- not yet: note.txt contains 'done'"
FAST = RetryBudget(model_attempts=2, tool_attempts=2, initial_backoff_s=0.01, max_backoff_s=0.05)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv(KEY_ENV, "sk-equal")
    with FakeOpenAIServer(api_key="sk-equal") as server:
        yield server
    assert server.problems == []


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    yield
    await completions.aclose_clients()


def _request(tmp_path: Path, model: FakeOpenAIServer, runtime: str, **changes: object) -> RunRequest:
    fixture = tmp_path / f"fixture-{uuid.uuid4().hex[:6]}"
    fixture.mkdir()
    (fixture / "README.md").write_text("Write done into note.txt.\n")
    return RunRequest(
        run_id=f"{runtime}-equal-{uuid.uuid4().hex[:8]}",
        runtime=runtime,  # type: ignore[arg-type]
        task_id="equal-arms",
        goal="Write done into note.txt.",
        fixture_dir=str(fixture),
        acceptance=[FileContains(path="note.txt", text="done")],
        provider=ProviderConfig(kind="openai", base_url=model.base_url, model="fake", api_key_env=KEY_ENV),
        budget=RunBudget(max_steps=6, max_steps_per_subtask=6),
        tools=["read_file", "write_file", "list_files"],
        **changes,  # type: ignore[arg-type]
    )


def _write(content: str) -> dict[str, object]:
    arguments = {"path": "note.txt", "content": content}
    return {"action": {"tool": "write_file", "kind": "tool_call", "thought": "write", "arguments": arguments}}


FINISH = {"action": {"kind": "finish", "thought": "done"}}


def _plan(model: FakeOpenAIServer) -> None:
    model.answer({"summary": "s", "constraints": []})
    model.answer({"tasks": [{"id": "a", "title": "Write the note", "instructions": "i", "depends_on": []}]})


def _prompts(model: FakeOpenAIServer, first: int) -> list[str]:
    """The text of every message of each proposal call from the `first`th request on."""
    return ["\n".join(m["content"] for m in r.body["messages"]) for r in model.requests[first:]]


async def _durable(dev_env: WorkflowEnvironment, task_queue: str, request: RunRequest) -> RunResult:
    async with build_worker(dev_env.client, task_queue):
        return await execute_run(dev_env.client, request, task_queue)


# --- equal information -----------------------------------------------------------------------


@pytest.mark.parametrize("show", [True, False, None], ids=["shown", "hidden", "unset"])
async def test_the_durable_model_is_told_the_checks_only_when_the_run_shows_them(
    dev_env: WorkflowEnvironment, task_queue: str, tmp_path: Path, model: FakeOpenAIServer, show: bool | None
) -> None:
    # A false claim of done first: the workflow checks it and refuses it whatever the model is told.
    _plan(model)
    for answer in (FINISH, _write("nope"), _write("done")):
        model.answer(answer)
    result = await _durable(dev_env, task_queue, _request(tmp_path, model, "durable", show_acceptance=show))

    assert result.outcome == RunState.COMPLETED, result.reason
    assert [step.outcome for step in result.steps] == ["rejected", "committed", "committed"]
    first, after_claim, after_write = _prompts(model, 2)
    told = show is not False
    assert all((DONE_WHEN in prompt) == told for prompt in (first, after_claim, after_write))
    assert (NOT_YET in after_claim and NOT_YET in after_write) == told
    assert ("claimed done, but it is not done yet" in after_claim) == (not told)
    # Hidden, nothing of the checks' status is said: not even how many hold.
    assert ("Task postconditions: 0/1 postconditions hold." in after_write) == told
    assert ("not yet:" in after_write) == told


@pytest.mark.parametrize("show", [True, False, None], ids=["shown", "hidden", "unset"])
async def test_the_baseline_model_is_told_the_same_checks_in_the_same_words_only_when_shown(
    tmp_path: Path, model: FakeOpenAIServer, show: bool | None
) -> None:
    for answer in (_write("nope"), _write("done"), FINISH):
        model.answer(answer)
    result = await BaselineLoop(lab_deps()).run(_request(tmp_path, model, "baseline", show_acceptance=show))

    assert result.outcome == RunState.COMPLETED, result.reason
    first, after_nope, after_done = _prompts(model, 0)
    assert all((DONE_WHEN in prompt) == bool(show) for prompt in (first, after_nope, after_done))
    assert (NOT_YET in after_nope) == bool(show)
    assert ("Task postconditions: 1/1 postconditions hold." in after_done) == bool(show)


def test_unset_the_request_is_written_as_before() -> None:
    request = RunRequest(
        run_id="r", runtime="durable", task_id="t", goal="g", fixture_dir="/f", acceptance=[], provider=ProviderConfig()
    )
    assert '"show_acceptance"' not in request.model_dump_json() and '"retries"' not in request.model_dump_json()
    shown = request.model_copy(update={"show_acceptance": False, "retries": FAST}).model_dump_json()
    assert RunRequest.model_validate_json(shown).retries == FAST and '"show_acceptance":false' in shown


# --- equal retry budgets ---------------------------------------------------------------------


@pytest.mark.parametrize("attempts", [2, 3])
async def test_the_durable_runtime_tries_a_model_call_as_often_as_the_budget_says(
    dev_env: WorkflowEnvironment, task_queue: str, tmp_path: Path, model: FakeOpenAIServer, attempts: int
) -> None:
    model.error(503, "overloaded")
    model.error(503, "overloaded")
    _plan(model)
    model.answer(_write("done"))
    retries = FAST.model_copy(update={"model_attempts": attempts})
    result = await _durable(dev_env, task_queue, _request(tmp_path, model, "durable", retries=retries))

    if attempts == 2:
        assert result.outcome == RunState.FAILED and len(model.requests) == 2
    else:
        assert result.outcome == RunState.COMPLETED, result.reason
        assert len(model.requests) == 5  # 3 tries of the goal, the plan, one proposal


@pytest.mark.parametrize("attempts", [2, 3])
async def test_the_baseline_tries_a_model_call_as_often_as_the_budget_says(
    tmp_path: Path, model: FakeOpenAIServer, attempts: int
) -> None:
    model.error(503, "overloaded")
    model.error(503, "overloaded")
    model.answer(_write("done"))
    model.answer(FINISH)
    retries = FAST.model_copy(update={"model_attempts": attempts})
    # Its own default is 3 attempts: the budget, not the default, decides.
    loop = BaselineLoop(lab_deps(), attempts=3 if attempts == 2 else 1)
    result = await loop.run(_request(tmp_path, model, "baseline", retries=retries))

    if attempts == 2:
        assert result.outcome == RunState.FAILED and "model call failed" in result.reason
        assert len(model.requests) == 2
    else:
        assert result.outcome == RunState.COMPLETED, result.reason
        assert len(model.requests) == 4


@pytest.mark.parametrize("attempts", [2, 3])
async def test_the_baseline_tries_a_tool_call_as_often_as_the_budget_says(
    tmp_path: Path, model: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch, attempts: int
) -> None:
    tries: list[int] = []
    real_execute = baseline_loop.execute

    async def flaky(deps: object, call: ExecuteToolInput) -> ToolResult:
        tries.append(call.step)
        if len(tries) <= 2:
            raise ToolUnavailable("the service the tool acts on is down")
        return await real_execute(deps, call)  # type: ignore[arg-type]

    monkeypatch.setattr(baseline_loop, "execute", flaky)
    model.answer(_write("done"))
    model.answer(FINISH)
    retries = FAST.model_copy(update={"tool_attempts": attempts})
    result = await BaselineLoop(lab_deps()).run(_request(tmp_path, model, "baseline", retries=retries))

    assert len(tries) == attempts
    assert (result.outcome == RunState.COMPLETED) == (attempts == 3), result.reason


@pytest.mark.parametrize("attempts", [2, 3])
async def test_the_durable_runtime_tries_a_tool_call_as_often_as_the_budget_says(
    dev_env: WorkflowEnvironment, task_queue: str, tmp_path: Path, model: FakeOpenAIServer, attempts: int
) -> None:
    deps = lab_deps()
    registered = all_activities(deps)
    real = next(a for a in registered if a.__temporal_activity_definition.name == named.EXECUTE_AND_CHECK)  # type: ignore[attr-defined]
    tries: list[int] = []

    # The worker's own activity, failing its first two attempts as a service that is down would.
    @activity.defn(name=named.EXECUTE_AND_CHECK)
    async def flaky(asked: ExecuteAndCheckInput) -> ExecutedAndChecked:
        tries.append(activity.info().attempt)
        if len(tries) <= 2:
            raise ApplicationError("the service the tool acts on is down", type="ToolUnavailable")
        return await real(asked)

    _plan(model)
    model.answer(_write("done"))
    retries = FAST.model_copy(update={"tool_attempts": attempts})
    request = _request(tmp_path, model, "durable", retries=retries)
    others = [a for a in registered if a is not real]
    async with build_worker(dev_env.client, task_queue, dependencies=deps, activities=[*others, flaky]):
        result = await execute_run(dev_env.client, request, task_queue)

    assert tries == list(range(1, attempts + 1))
    assert (result.outcome == RunState.COMPLETED) == (attempts == 3), result.reason


def test_the_durable_policies_are_the_budget_and_unset_the_runtimes_own() -> None:
    budget = RetryBudget(
        model_attempts=4, tool_attempts=2, initial_backoff_s=0.5, backoff_coefficient=3, max_backoff_s=9
    )
    model = activity_options.for_model(budget).retry
    assert (model.maximum_attempts, model.initial_interval.total_seconds(), model.backoff_coefficient) == (4, 0.5, 3)
    assert model.maximum_interval is not None and model.maximum_interval.total_seconds() == 9
    for tool in (activity_options.EXECUTE_AND_CHECK, activity_options.READ):
        assert activity_options.for_tool(tool, budget).retry.maximum_attempts == 2
        assert activity_options.for_tool(tool, None) is tool
    assert activity_options.for_model(None) is activity_options.MODEL
    assert [budget.backoff_s(n) for n in (1, 2, 3, 4)] == [0.5, 1.5, 4.5, 9]


def test_the_reports_method_says_what_every_arm_was_told_and_its_retries() -> None:
    config = ExperimentConfig(name="x", tasks=["t"], runtimes=["durable", "baseline"], trials=1)
    assert "differed by runtime" in information_and_retries(config)
    equal = config.model_copy(update={"show_acceptance": False, "retries": FAST})
    said = information_and_retries(equal)
    assert "no arm's model was shown the task's acceptance checks" in said
    assert "every arm had 2 model and 2 tool attempts, backoff 0.01 s x2 up to 0.05 s" in said
    # Unset, the config's dump (and its digest) is as before the settings existed.
    assert "show_acceptance" not in config.model_dump_json() and "retries" not in config.model_dump_json()


def test_every_arm_of_an_experiment_gets_the_same_settings(tmp_path: Path) -> None:
    config = ExperimentConfig(
        name="x",
        tasks=["small-off-by-one"],
        runtimes=["durable", "baseline", "baseline+verifier"],
        trials=1,
        show_acceptance=False,
        retries=FAST,
    )
    # What request_for reads of the lab: its provider and config (no cluster is started).
    lab = Lab(cluster=None, faults=None, provider=ProviderConfig(), config=config, scratch=tmp_path)  # type: ignore[arg-type]
    for runtime in config.runtimes:
        spec = TrialSpec("x-1", load_task("small-off-by-one"), runtime, FaultScenario(name="none"), 0, 0)
        request = request_for(spec, lab)
        assert (request.show_acceptance, request.retries) == (False, FAST), runtime
