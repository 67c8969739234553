"""Cassettes: a model's completions recorded against a server, then replayed with no server."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from activities.boundary import to_application_error
from agent.providers import completions
from agent.providers.cassette import Cassette, request_key
from agent.providers.openai_provider import OpenAIProvider
from agent.providers.prompts import answer_text
from agent.tools.registry import tool_specs
from baseline import BaselineLoop
from contracts import ActionProposal, ProposeActionInput, ProposeActionResult, ProviderConfig, RunResult, RunState
from contracts.errors import ProviderRequestError
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from tests.fake_openai_server import FakeOpenAIServer
from tests.lab_dependencies import lab_deps

KEY_ENV = "LAB_TEST_CASSETTE_KEY"


def keyed_provider(config: ProviderConfig) -> OpenAIProvider:
    """The provider as a worker builds it: with the key its environment holds for the config."""
    return OpenAIProvider(config, lab_deps().api_key(config.api_key_env))


FINISH = {"action": {"kind": "finish", "thought": "done"}}


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv(KEY_ENV, "sk-cassette-test")
    with FakeOpenAIServer(api_key="sk-cassette-test") as running:
        yield running
    assert running.problems == []


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    yield
    await completions.aclose_clients()


def config_for(base_url: str, cassette: Path, mode: str) -> ProviderConfig:
    return ProviderConfig(
        kind="openai", base_url=base_url, model="fake", api_key_env=KEY_ENV, cassette=str(cassette), cassette_mode=mode
    )


def request_for(config: ProviderConfig, goal: str = "Fix the median bug.") -> ProposeActionInput:
    return ProposeActionInput(provider=config, goal=goal)


async def test_recorded_answers_replay_identically_without_a_server(
    server: FakeOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "run.jsonl"
    recording = keyed_provider(config_for(server.base_url, cassette, "record"))
    server.answer({"summary": "Fix median.", "constraints": []})
    server.answer({"tasks": [{"id": "fix", "title": "Fix", "instructions": "", "depends_on": []}]})
    server.answer("not JSON at all")
    recorded = [
        await recording.interpret_goal("Fix the median bug."),
        await recording.draft_plan("Fix the median bug.", "Fix median.", tool_specs()),
        await recording.propose(request_for(recording._config), tool_specs()),
    ]
    base_url = server.base_url
    server.stop()
    monkeypatch.delenv(KEY_ENV)  # a replay needs no key, and no network

    replaying = keyed_provider(config_for(base_url, cassette, "replay"))
    replayed = [
        await replaying.interpret_goal("Fix the median bug."),
        await replaying.draft_plan("Fix the median bug.", "Fix median.", tool_specs()),
        await replaying.propose(request_for(replaying._config), tool_specs()),
    ]

    assert [_as_run(reply) for reply in replayed] == recorded
    # Each replayed answer says it did not run now.
    assert all(reply.usage.replayed_calls == reply.usage.model_calls == 1 for reply in replayed)
    assert replayed[2].invalid_output is not None  # an unusable answer replays as unusable
    assert len(cassette.read_text().splitlines()) == 3


def _as_run(reply: Any) -> Any:
    """A replayed reply as it was when recorded: the same, but for its replayed-call count."""
    usage = reply.usage.model_copy(update={"replayed_calls": 0})
    if isinstance(reply, ProposeActionResult):
        return reply.model_copy(update={"usage": usage})
    return type(reply)(reply.value, usage)


async def test_replay_or_live_replays_what_was_recorded_and_asks_the_model_where_the_run_diverges(
    server: FakeOpenAIServer, tmp_path: Path
) -> None:
    cassette = tmp_path / "run.jsonl"
    recording = config_for(server.base_url, cassette, "record")
    server.answer(FINISH)
    await keyed_provider(recording).propose(request_for(recording), tool_specs())

    mixed = config_for(server.base_url, cassette, "replay_or_live")
    replayed = await keyed_provider(mixed).propose(request_for(mixed), tool_specs())
    assert len(server.requests) == 1 and replayed.usage.replayed_calls == 1
    server.answer(FINISH)
    live = await keyed_provider(mixed).propose(request_for(mixed, goal="a run that diverged"), tool_specs())
    assert len(server.requests) == 2 and live.usage.replayed_calls == 0 and live.usage.model_calls == 1
    # The live answer is recorded: the next trial that diverges the same way replays it.
    again = await keyed_provider(mixed).propose(request_for(mixed, goal="a run that diverged"), tool_specs())
    assert len(server.requests) == 2 and again.usage.replayed_calls == 1
    assert len(cassette.read_text().splitlines()) == 2


async def test_the_key_ignores_the_server_and_the_api_key(server: FakeOpenAIServer, tmp_path: Path) -> None:
    cassette = tmp_path / "run.jsonl"
    server.answer(FINISH)
    recorded = await keyed_provider(config_for(server.base_url, cassette, "record")).propose(
        request_for(ProviderConfig()), tool_specs()
    )

    elsewhere = config_for("http://127.0.0.1:9/v1", cassette, "replay")
    replayed = await keyed_provider(elsewhere).propose(request_for(elsewhere), tool_specs())

    assert _as_run(replayed) == recorded
    body = server.requests[0].body
    expected = request_key(
        {key: body[key] for key in ("model", "messages", "response_format", "temperature")}
        | {
            "max_tokens": body["max_tokens"],
            "seed": body["seed"],
        }
    )
    assert json.loads(cassette.read_text())["request"] == expected


async def test_a_request_not_on_the_cassette_fails_clearly_and_for_good(tmp_path: Path) -> None:
    cassette = tmp_path / "empty.jsonl"
    config = config_for("http://127.0.0.1:9/v1", cassette, "replay")

    with pytest.raises(ProviderRequestError) as raised:
        await keyed_provider(config).propose(request_for(config, goal="never recorded"), tool_specs())

    message = str(raised.value)
    assert str(cassette) in message
    assert len(message.split("request ")[1].split()[0]) == 64  # the request's sha256
    assert to_application_error(raised.value).non_retryable


async def test_concurrent_recording_keeps_one_line_per_completion(server: FakeOpenAIServer, tmp_path: Path) -> None:
    cassette = tmp_path / "busy.jsonl"
    config = config_for(server.base_url, cassette, "record")
    for _ in range(24):
        server.answer(FINISH)
    provider = keyed_provider(config)

    await asyncio.gather(*(provider.propose(request_for(config, goal=f"goal {n}"), tool_specs()) for n in range(24)))

    lines = cassette.read_text().splitlines()
    assert len(lines) == 24
    assert len({json.loads(line)["request"] for line in lines}) == 24


async def test_appends_from_many_threads_never_interleave(tmp_path: Path) -> None:
    tape = Cassette(tmp_path / "threads.jsonl")
    big = "x" * 200_000  # larger than a pipe buffer or a page: one write must still be one line

    await asyncio.gather(*(tape.append(f"key-{n}", {"content": big + str(n)}) for n in range(16)))

    entries = [json.loads(line) for line in (tmp_path / "threads.jsonl").read_text().splitlines()]
    assert sorted(entry["request"] for entry in entries) == sorted(f"key-{n}" for n in range(16))
    assert all(entry["completion"]["content"] == big + entry["request"].removeprefix("key-") for entry in entries)
    assert await tape.lookup("key-3") == {"content": big + "3"}


# A whole run, recorded then replayed


def _scripted_actions(task_id: str) -> list[ActionProposal]:
    """The task's scripted actions: what a competent model proposes."""
    script = yaml.safe_load(load_task(task_id).script_path.read_text())
    return [ActionProposal.model_validate(action) for task in script["plan"] for action in task["actions"]]


def _steps(result: RunResult) -> list[dict[str, Any]]:
    return [
        {
            "step": step.step,
            "outcome": step.outcome,
            "proposal": step.proposal,
            "reason": step.reason,
            "tokens": (step.usage.input_tokens, step.usage.output_tokens),
            "request_id": step.usage.request_id,
        }
        for step in result.steps
    ]


async def test_a_baseline_run_recorded_then_replayed_is_the_same_run(server: FakeOpenAIServer, tmp_path: Path) -> None:
    task = load_task("bugfix-median")
    cassette = tmp_path / "bugfix.jsonl"
    actions = _scripted_actions("bugfix-median")
    for action in actions:
        server.answer(answer_text(action))
    base = build_request(task, "baseline")

    recording = config_for(server.base_url, cassette, "record")
    recorded = await BaselineLoop(lab_deps()).run(base.model_copy(update={"provider": recording}))
    base_url = server.base_url
    server.stop()
    replaying = config_for(base_url, cassette, "replay")
    fresh = build_request(task, "baseline")  # another run id, another workspace
    replayed = await BaselineLoop(lab_deps()).run(fresh.model_copy(update={"provider": replaying}))

    assert recorded.outcome == RunState.COMPLETED, recorded.reason
    assert [step.proposal for step in recorded.steps] == actions
    assert replayed.outcome == recorded.outcome
    assert _steps(replayed) == _steps(recorded)
    # Tokens, cost and latency as recorded; every call marked as replayed.
    assert replayed.usage == recorded.usage.model_copy(update={"replayed_calls": recorded.usage.model_calls})
    assert replayed.run_id != recorded.run_id
