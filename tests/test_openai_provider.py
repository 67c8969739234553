"""The OpenAI provider against a fake OpenAI-compatible server: what it sends, what it makes of
the answers, and how each failure reaches Temporal."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from datetime import timedelta
from typing import Any

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.boundary import to_application_error
from activities.fused import FusedActivities
from activities.model_calls import ModelActivities
from agent.providers import completions, schemas
from agent.providers.factory import build_provider
from agent.providers.openai_provider import OpenAIProvider
from agent.providers.prompts import FEEDBACK_LIMIT
from agent.tools.registry import tool_specs
from contracts import (
    ActionProposal,
    DraftPlanInput,
    GoalSpec,
    Price,
    ProposeActionInput,
    ProposeActionResult,
    ProviderConfig,
    RecordThenProposeInput,
    Subtask,
    Turn,
)
from contracts.errors import ProviderAuthError, ProviderError, ProviderRequestError, ProviderUnavailable
from tests.fake_openai_server import REQUEST_ID, FakeOpenAIServer, Scripted
from tests.lab_dependencies import lab_deps

KEY_ENV = "LAB_TEST_OPENAI_KEY"


async def propose_through_the_worker(request: ProposeActionInput) -> ProposeActionResult:
    """A proposal as a worker makes it: `record_then_propose`, with no record waiting."""
    recorded = await FusedActivities(lab_deps()).record_then_propose(RecordThenProposeInput(propose=request))
    return recorded.proposed


def keyed_provider(config: ProviderConfig) -> OpenAIProvider:
    """The provider as a worker builds it: with the key its environment holds for the config."""
    return OpenAIProvider(config, lab_deps().api_key(config.api_key_env))


API_KEY = "sk-test-7Hq2VwXk9PzL4mN8"
FINISH = {"action": {"kind": "finish", "thought": "done"}}
READ = {"action": {"tool": "read_file", "kind": "tool_call", "thought": "look", "arguments": {"path": "a.py"}}}
# What llama-cpp-python 0.3.36's server answered here to a `json_schema` response format.
LLAMA_500 = (
    "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
    "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}"
)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv(KEY_ENV, API_KEY)
    with FakeOpenAIServer(api_key=API_KEY) as running:
        yield running
    assert running.problems == []


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    yield
    await completions.aclose_clients()


def config_for(server: FakeOpenAIServer, **changes: Any) -> ProviderConfig:
    settings: dict[str, Any] = {"timeout_s": 5, "max_output_tokens": 300, "seed": 7, **changes}
    return ProviderConfig(kind="openai", base_url=server.base_url, model="fake", api_key_env=KEY_ENV, **settings)


def request_for(config: ProviderConfig, **changes: Any) -> ProposeActionInput:
    return ProposeActionInput(provider=config, goal="Fix the median bug.", run_id="run-1", step=1, **changes)


async def propose(config: ProviderConfig, **changes: Any) -> Any:
    return await keyed_provider(config).propose(request_for(config, **changes), tool_specs())


# What is sent


async def test_the_request_carries_model_settings_and_a_strict_schema_per_tool(server: FakeOpenAIServer) -> None:
    config = config_for(server, temperature=0.3)
    server.answer(READ)

    await propose(config)

    sent = server.requests[0]
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == f"Bearer {API_KEY}"
    body = sent.body
    assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == ("fake", 0.3, 300, 7)
    assert [message["role"] for message in body["messages"]] == ["system", "user"]
    form = body["response_format"]
    assert form["type"] == "json_schema"
    assert form["json_schema"]["strict"] is True
    alternatives = form["json_schema"]["schema"]["properties"]["action"]["anyOf"]
    calls = {alt["properties"]["tool"]["const"]: alt for alt in alternatives if "tool" in alt["properties"]}
    assert sorted(calls) == sorted(tool.name for tool in tool_specs())
    for tool in tool_specs():
        arguments = calls[tool.name]["properties"]["arguments"]
        assert arguments == schemas.clean(tool.parameters, strict=True)
        assert arguments["required"] == list(tool.parameters["properties"])  # strict: every one required
    endings = [alt["properties"]["kind"]["const"] for alt in alternatives if "tool" not in alt["properties"]]
    assert endings == ["finish", "give_up"]
    # The server checked OpenAI's documented strict rules on every object (see the fixture).


async def test_json_object_mode_sends_the_plain_schema_llama_cpp_compiles(server: FakeOpenAIServer) -> None:
    server.answer(READ)

    await propose(config_for(server, structured_output="json_object"))

    form = server.requests[0].body["response_format"]
    assert form["type"] == "json_object"
    alternatives = form["schema"]["properties"]["action"]["anyOf"]
    run_command = next(alt for alt in alternatives if alt["properties"].get("tool", {}).get("const") == "run_command")
    arguments = run_command["properties"]["arguments"]
    assert arguments["required"] == ["command"]  # optional arguments stay optional
    assert "maxLength" not in json.dumps(form["schema"])  # would unroll into a huge grammar


async def test_prompt_shows_the_task_its_postconditions_and_earlier_turns(server: FakeOpenAIServer) -> None:
    config = config_for(server)
    task = Subtask.model_validate(
        {
            "id": "fix",
            "title": "Fix median",
            "instructions": "Average the two middle values.",
            "postconditions": [{"kind": "command_exit_code", "command": "python -m pytest -q"}],
        }
    )
    history = [
        Turn(step=1, proposal=ActionProposal.model_validate(READ["action"]), outcome="committed", feedback="x" * 5000),
        Turn(
            step=2, proposal=None, outcome="rejected", feedback="unusable answer: not valid JSON\nThe answer was: {oo"
        ),
    ]
    server.answer(FINISH)

    await propose(config, task=task, history=history)

    messages = server.requests[0].body["messages"]
    assert [message["role"] for message in messages] == ["system", "user", "assistant", "user", "assistant", "user"]
    system, assignment = messages[0]["content"], messages[1]["content"]
    assert all(tool.name in system for tool in tool_specs())
    assert "Current task (fix): Fix median" in assignment
    assert "`python -m pytest -q` exits 0" in assignment
    assert json.loads(messages[2]["content"]) == READ
    assert len(messages[3]["content"]) < FEEDBACK_LIMIT + 200 and "characters cut" in messages[3]["content"]
    assert messages[4]["content"] == "{oo"
    said = "Step 2, rejected: unusable answer: not valid JSON\n\nWhat is your next action?"
    assert messages[5]["content"].startswith(said)


# What comes back


async def test_usage_counts_tokens_cost_latency_and_request_id(server: FakeOpenAIServer) -> None:
    config = config_for(server, price=Price(input_per_million=2.5, output_per_million=10.0))
    server.answer(READ, input_tokens=1000, output_tokens=200)

    result = await propose(config)

    assert result.proposal == ActionProposal(tool="read_file", arguments={"path": "a.py"}, thought="look")
    usage = result.usage
    assert (usage.input_tokens, usage.output_tokens, usage.model_calls) == (1000, 200, 1)
    assert usage.cost_usd == pytest.approx(1000 * 2.5e-6 + 200 * 10e-6)
    assert (usage.provider, usage.model, usage.request_id) == ("openai", "fake", REQUEST_ID)
    assert usage.latency_ms > 0


async def test_without_a_request_id_header_the_response_id_is_kept(server: FakeOpenAIServer) -> None:
    server.answer(FINISH, headers={"x-request-id": ""})

    result = await propose(config_for(server))

    assert result.usage.request_id == "chatcmpl-fake"


async def test_strict_nulls_for_omitted_arguments_are_dropped(server: FakeOpenAIServer) -> None:
    answer = {"tool": "run_command", "kind": "tool_call", "thought": "t", "arguments": {"command": "ls"}}
    answer["arguments"]["timeout_s"] = None
    server.answer({"action": answer})

    result = await propose(config_for(server))

    assert result.proposal.arguments == {"command": "ls"}


@pytest.mark.parametrize(
    ("content", "finish_reason", "expected"),
    [
        ('{"action": {"kind": "finish"', "stop", "not valid JSON"),
        ('{"action": {"kind": "finish"', "length", "cut off at the output token limit"),
        ('{"action": {"kind": "dance", "thought": ""}}', "stop", "not a valid action: kind"),
        ("[1, 2]", "stop", "not a JSON object"),
        ("", "stop", "the answer was empty"),
    ],
)
async def test_an_unusable_answer_is_returned_as_invalid_output(
    server: FakeOpenAIServer, content: str, finish_reason: str, expected: str
) -> None:
    server.answer(content, finish_reason=finish_reason)

    result = await propose(config_for(server))

    assert result.proposal is None
    assert expected in result.invalid_output
    assert result.invalid_output.endswith(content)  # the model sees what it said
    assert result.usage.model_calls == 1
    assert len(server.requests) == 1  # fed back by the runtime, never retried here


async def test_a_raw_newline_inside_a_string_is_accepted(server: FakeOpenAIServer) -> None:
    # llama.cpp's grammar lets a model write one; strict JSON would refuse the whole answer.
    server.answer('{"action": {"kind": "finish", "thought": "line one\nline two"}}')

    result = await propose(config_for(server))

    assert result.proposal == ActionProposal(kind="finish", thought="line one\nline two")


# Failures, classified


@pytest.mark.parametrize(
    ("status", "message", "headers", "error_type", "retry_after_s"),
    [
        (429, "Rate limit reached", {"retry-after": "7"}, ProviderUnavailable, 7.0),
        (429, "Rate limit reached", {"retry-after-ms": "1500"}, ProviderUnavailable, 1.5),
        (429, "Rate limit reached", {}, ProviderUnavailable, None),
        (500, "the server had an error", {}, ProviderUnavailable, None),
        (503, "overloaded", {}, ProviderUnavailable, None),
        (500, LLAMA_500, {}, ProviderRequestError, None),
        (400, "Invalid schema for response_format", {}, ProviderRequestError, None),
        (404, "The model `fake` does not exist", {}, ProviderRequestError, None),
        (422, "Unprocessable", {}, ProviderRequestError, None),
        (401, "Incorrect API key provided", {}, ProviderAuthError, None),
        (403, "Forbidden", {}, ProviderAuthError, None),
    ],
)
async def test_http_errors_are_classified(
    server: FakeOpenAIServer,
    status: int,
    message: str,
    headers: dict[str, str],
    error_type: type[ProviderError],
    retry_after_s: float | None,
) -> None:
    server.error(status, message, headers=headers)

    with pytest.raises(error_type) as raised:
        await propose(config_for(server))

    error = raised.value
    assert type(error) is error_type
    assert f"HTTP {status}" in str(error)
    assert getattr(error, "retry_after_s", None) == retry_after_s
    assert error.usage is not None and error.usage.model_calls == 1 and error.usage.latency_ms > 0
    converted = to_application_error(error)
    assert converted.type == error_type.__name__
    assert converted.non_retryable is (error_type is not ProviderUnavailable)
    expected_delay = timedelta(seconds=retry_after_s) if retry_after_s else None
    assert converted.next_retry_delay == expected_delay
    assert converted.details[0]["model_calls"] == 1


async def test_a_reply_that_is_not_a_chat_completion_is_a_provider_error(server: FakeOpenAIServer) -> None:
    server.enqueue(Scripted(body={"choices": "none"}))

    with pytest.raises(ProviderError, match="something other than a chat completion") as raised:
        await propose(config_for(server))

    assert type(raised.value) is ProviderError and not raised.value.retryable
    assert raised.value.usage is not None and raised.value.usage.model_calls == 1


async def test_a_slow_server_times_out_as_unavailable(server: FakeOpenAIServer) -> None:
    server.answer(FINISH, delay_s=3)

    with pytest.raises(ProviderUnavailable, match=r"within 0\.3 s") as raised:
        await propose(config_for(server, timeout_s=0.3))

    assert raised.value.usage is not None
    assert raised.value.usage.latency_ms >= 300


async def test_nothing_listening_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(KEY_ENV, API_KEY)
    stopped = FakeOpenAIServer().start()
    config = config_for(stopped)
    stopped.stop()

    with pytest.raises(ProviderUnavailable, match="cannot reach"):
        await propose(config)


async def test_a_missing_key_for_a_remote_server_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    config = ProviderConfig(kind="openai", model="fake", base_url="https://api.example.invalid/v1", api_key_env=KEY_ENV)

    with pytest.raises(ProviderAuthError, match=KEY_ENV) as raised:
        await keyed_provider(config).propose(request_for(config), tool_specs())

    assert to_application_error(raised.value).non_retryable


async def test_a_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(KEY_ENV, raising=False)
    with FakeOpenAIServer() as local:
        local.answer(FINISH)
        result = await propose(config_for(local))

    assert result.proposal is not None and result.proposal.kind == "finish"


async def test_the_api_key_is_sent_but_never_shown(server: FakeOpenAIServer, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    config = config_for(server)
    server.answer(READ)
    # OpenAI quotes the refused key's ends; this server quotes all of it.
    server.error(401, f"Incorrect API key provided: {API_KEY}. You can find your API key at ...")
    server.error(429, f"Slow down, {API_KEY}")

    result = await propose(config)
    failures = []
    for _ in range(2):
        with pytest.raises(ProviderError) as raised:
            await propose(config)
        failures.append(raised.value)

    assert all(sent.headers["authorization"] == f"Bearer {API_KEY}" for sent in server.requests)
    shown = [
        result.model_dump_json(),
        config.model_dump_json(),
        *(str(error) for error in failures),
        *(
            json.dumps([to_application_error(error).message, *to_application_error(error).details])
            for error in failures
        ),
        caplog.text,
    ]
    assert caplog.records  # the SDK and the provider did log at DEBUG
    for text in shown:
        assert API_KEY not in text
        assert API_KEY[:12] not in text


# Goal interpretation and plans: repaired, then a fallback


async def test_an_invalid_interpretation_is_asked_again_with_the_error(server: FakeOpenAIServer) -> None:
    server.answer({"summary": "", "constraints": []})
    server.answer({"summary": "Fix median for even lengths.", "constraints": ["Do not touch the tests."]})

    reply = await keyed_provider(config_for(server)).interpret_goal("Fix the median bug.")

    assert reply.value.summary == "Fix median for even lengths."
    assert reply.usage.model_calls == 2 and reply.usage.input_tokens == 200
    repair = server.requests[1].body["messages"]
    assert repair[-2] == {"role": "assistant", "content": json.dumps({"summary": "", "constraints": []})}
    assert "summary" in repair[-1]["content"] and "not valid" in repair[-1]["content"]
    assert server.requests[1].body["response_format"]["json_schema"]["name"] == "goal_interpretation"


async def test_an_interpretation_that_never_validates_falls_back_to_the_goal(server: FakeOpenAIServer) -> None:
    for _ in range(3):
        server.answer("no JSON here")

    reply = await keyed_provider(config_for(server)).interpret_goal("  Fix the median bug.  ")

    assert reply.value.summary == "Fix the median bug." and reply.value.constraints == []
    assert reply.usage.model_calls == 3
    assert server.pending() == 0


async def test_a_plan_is_repaired_then_accepted(server: FakeOpenAIServer) -> None:
    cyclic = {
        "tasks": [
            {"id": "a", "title": "A", "instructions": "", "depends_on": ["b"]},
            {"id": "b", "title": "B", "instructions": "", "depends_on": ["a"]},
        ]
    }
    good = {"tasks": [{"id": "fix", "title": "Fix", "instructions": "Fix it.", "depends_on": []}]}
    server.answer(cyclic)
    server.answer(good)

    reply = await keyed_provider(config_for(server)).draft_plan("Fix the bug.", "Fix it.", tool_specs())

    assert [task.id for task in reply.value.subtasks] == ["fix"]
    assert reply.value.subtasks[0].postconditions == []
    assert "cycle" in server.requests[1].body["messages"][-1]["content"]
    assert reply.usage.model_calls == 2


async def test_a_plan_may_not_declare_its_own_postconditions(server: FakeOpenAIServer) -> None:
    sneaky = {
        "tasks": [
            {
                "id": "fix",
                "title": "Fix",
                "instructions": "",
                "depends_on": [],
                "postconditions": [{"kind": "command_exit_code", "command": "true"}],
            }
        ]
    }
    for _ in range(3):
        server.answer(sneaky)

    reply = await keyed_provider(config_for(server)).draft_plan("Fix the bug.\nCarefully.", "Fix it.", tool_specs())

    assert "postconditions" in server.requests[1].body["messages"][-1]["content"]
    # The fallback: one task carrying the goal.
    [task] = reply.value.subtasks
    assert (task.id, task.title, task.instructions, task.postconditions) == (
        "goal",
        "Fix it.",
        "Fix the bug.\nCarefully.",
        [],
    )
    assert reply.usage.model_calls == 3


async def test_a_failure_while_repairing_carries_the_earlier_attempts_usage(server: FakeOpenAIServer) -> None:
    server.answer("not JSON", input_tokens=500, output_tokens=5)
    server.error(503, "overloaded")

    with pytest.raises(ProviderUnavailable) as raised:
        await keyed_provider(config_for(server)).interpret_goal("Fix the bug.")

    assert raised.value.usage is not None
    assert (raised.value.usage.model_calls, raised.value.usage.input_tokens) == (2, 500)


# Through the activity the workers run


async def test_propose_action_activity_uses_the_provider(server: FakeOpenAIServer) -> None:
    config = config_for(server)
    server.answer(READ)

    result = await ActivityEnvironment().run(propose_through_the_worker, request_for(config))

    assert result.proposal == ActionProposal(tool="read_file", arguments={"path": "a.py"}, thought="look")
    assert result.usage.provider == "openai"
    assert isinstance(build_provider(config, lab_deps()), OpenAIProvider)


@pytest.mark.parametrize(
    ("status", "headers", "error_type", "non_retryable", "delay"),
    [
        (429, {"retry-after": "2"}, "ProviderUnavailable", False, timedelta(seconds=2)),
        (500, {}, "ProviderUnavailable", False, None),
        (400, {}, "ProviderRequestError", True, None),
        (401, {}, "ProviderAuthError", True, None),
    ],
)
async def test_propose_action_activity_raises_typed_application_errors(
    server: FakeOpenAIServer,
    status: int,
    headers: dict[str, str],
    error_type: str,
    non_retryable: bool,
    delay: timedelta | None,
) -> None:
    server.error(status, "no", headers=headers)

    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(propose_through_the_worker, request_for(config_for(server)))

    error = raised.value
    assert (error.type, error.non_retryable, error.next_retry_delay) == (error_type, non_retryable, delay)
    assert error.details[0]["model_calls"] == 1


async def test_the_plan_activity_gives_the_goals_acceptance_to_the_last_task(server: FakeOpenAIServer) -> None:
    acceptance = [{"kind": "command_exit_code", "command": "python -m pytest -q"}]
    spec = GoalSpec.model_validate({"goal": "Fix it.", "summary": "Fix it.", "acceptance": acceptance})
    drafted = {
        "tasks": [
            {"id": "read", "title": "Read", "instructions": "", "depends_on": []},
            {"id": "fix", "title": "Fix", "instructions": "", "depends_on": ["read"]},
            {"id": "notes", "title": "Notes", "instructions": "", "depends_on": []},
        ]
    }
    server.answer(drafted)

    result = await ActivityEnvironment().run(
        ModelActivities(lab_deps()).draft_plan, DraftPlanInput(provider=config_for(server), goal_spec=spec)
    )

    assert [task.id for task in result.plan.topological_order()] == ["read", "notes", "fix"]
    conditions = {task.id: task.postconditions for task in result.plan.subtasks}
    assert conditions == {"read": [], "notes": [], "fix": spec.acceptance}
