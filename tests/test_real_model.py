"""A real model, offline: SmolLM2-135M through the llama.cpp server, on both runtimes, through
the same OpenAI provider code any server gets. A smoke test of the path, not of the model
(which is too small to solve the task): it must run, answer within the schema, be counted, and
leave the model's digest and seed on record."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from temporalio.client import Client

from agent.ledger import read_events
from agent.providers import prompts
from agent.providers.completions import complete
from agent.tools.registry import tool_specs
from baseline import BaselineLoop
from contracts import ProviderConfig, RunBudget
from host.build import build_worker
from lab.models.llama_log import LlamaLog
from lab.models.llama_server import keep_only_the_system_prompt, llama_server, local_provider_config, server_log_path
from lab.models.local_model import resolve_model
from lab.runs.catalog import Task
from lab.runs.fork import fork_request
from lab.runs.run_request import build_request
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

pytestmark = [pytest.mark.real_model, pytest.mark.extra("local"), pytest.mark.timeout(600)]


@pytest.fixture(scope="module")
async def smollm2() -> AsyncIterator[ProviderConfig]:
    model = resolve_model("smollm2")
    async with llama_server(model) as base_url:
        yield local_provider_config(model, base_url, seed=7).model_copy(update={"max_output_tokens": 256})


async def test_the_durable_runtime_runs_a_real_model(
    smollm2: ProviderConfig, client: Client, task_queue: str, bugfix_task: Task
) -> None:
    request = build_request(bugfix_task, "durable", provider=smollm2).model_copy(
        update={"budget": RunBudget(max_steps=2, max_steps_per_subtask=2)}
    )
    async with build_worker(client, task_queue):
        result = await execute_run(client, request, task_queue)

    assert result.outcome.terminal
    assert result.steps, "the model was asked for at least one step"
    assert result.usage.model_calls >= 3 and result.usage.input_tokens > 0 and result.usage.output_tokens > 0
    # Every answer was either a proposal of the schema's shape or reported as unusable.
    assert all(step.proposal is not None or "unusable" in step.reason for step in result.steps)
    started = next(e for e in read_events(lab_deps().ledgers.path(request.run_id)) if e.type == "run_started")
    recorded = started.payload["provider"]
    assert recorded["model_sha256"] == smollm2.model_sha256 and recorded["seed"] == 7


async def test_the_baseline_runs_the_same_model(smollm2: ProviderConfig, bugfix_task: Task) -> None:
    request = build_request(bugfix_task, "baseline", provider=smollm2).model_copy(
        update={"budget": RunBudget(max_steps=2, max_steps_per_subtask=2)}
    )
    result = await BaselineLoop(lab_deps(), retry_delay_s=0).run(request)
    assert result.steps and result.usage.model_calls >= 1 and result.usage.output_tokens > 0
    assert result.acceptance is not None  # judged on the real end state, whatever it is


async def test_a_trial_starts_with_only_the_system_prompt_cached(smollm2: ProviderConfig) -> None:
    """What the experiment runner does before each trial: the same first prompt twice reads
    nothing the second time, but after the reset everything past the system message again."""
    assert smollm2.base_url is not None
    tools = tool_specs()
    messages = [
        {"role": "system", "content": prompts.agent_system(tools)},
        {"role": "user", "content": "Goal:\nSay hello.\n\nFiles in your workspace: a.py, b.py"},
    ]
    server_log = LlamaLog(server_log_path())

    async def evaluated() -> int:
        mark = server_log.mark()
        await complete(smollm2.model_copy(update={"max_output_tokens": 2}), messages, {"type": "text"}, None)
        (call,) = server_log.calls_since(mark)
        return call.evaluated_tokens

    await evaluated()
    again = await evaluated()
    await keep_only_the_system_prompt(smollm2.base_url)
    after_reset = await evaluated()
    assert again <= 1
    assert after_reset >= 10  # the user message, at least


async def test_a_fork_asks_the_model_server_for_its_own_steps_only(
    smollm2: ProviderConfig, client: Client, task_queue: str, bugfix_task: Task
) -> None:
    """Counted by the llama.cpp server itself (its log, a line of timings per completion): a
    fork after step 1 of a real model's run asks for its steps 2 and 3, not for the goal, the
    plan or step 1, which it carries over from its parent."""
    server_log = LlamaLog(server_log_path())
    request = build_request(bugfix_task, "durable", provider=smollm2).model_copy(
        update={"budget": RunBudget(max_steps=3, max_steps_per_subtask=3)}
    )
    async with build_worker(client, task_queue):
        mark = server_log.mark()
        parent = await execute_run(client, request, task_queue)
        parent_calls = len(server_log.calls_since(mark))
        assert len(parent.steps) >= 2, parent
        fork = await fork_request(client, lab_deps(), parent.run_id, 1, None)
        mark = server_log.mark()
        forked = await execute_run(client, fork, task_queue)
        fork_calls = len(server_log.calls_since(mark))

    assert parent_calls == parent.usage.model_calls >= 3  # the goal, the plan, a step at least
    assert forked.steps[:1] == parent.steps[:1]
    carried = parent.steps[0].usage.model_calls
    assert fork_calls == forked.usage.model_calls - carried
    assert fork_calls >= len(forked.steps) - 1 >= 1  # a proposal for each live step
    assert fork_calls < parent_calls
