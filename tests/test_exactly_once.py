"""The executor's exactly-once guarantees, end to end against the real operations service.

Each test is one agent run with its own tenant (the run id). The effect store is the
executor's own (under the session's data directory); the service counts the effects, as a
grader would: a refund paid twice is two rows in `/state`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.fused import FusedActivities
from agent.effects.keys import canonical_json, idempotency_key
from agent.execution import execute
from agent.sandbox.process import ProcessSandbox
from agent.tools.context import ToolContext
from agent.tools.registry import TOOLS
from contracts import ActionProposal, ExecuteAndCheckInput, ExecuteToolInput, ToolResult
from contracts.errors import ToolUnavailable
from ops_service import OpsServiceProcess
from tests.conftest import free_port
from tests.lab_dependencies import lab_deps

SEED = {
    "orders": [{"order_id": "ORD-1", "customer": "alice", "amount_cents": 5000}],
    "accounts": [{"user": "alice", "email": "alice@example.com"}],
}
REFUND = {"order_id": "ORD-1", "amount_cents": 1500, "reason": "damaged in transit"}

State = dict[str, Any]
# Read-only: tests build variants with `|`, never mutate.
Arguments = Mapping[str, Any]
# Per tool: arguments for one call, and the rows of /state its effects add.
CALLS: dict[str, tuple[Arguments, Callable[[State], list[Any]]]] = {
    "issue_refund": (REFUND, lambda state: state["refunds"]),
    "create_ticket": (
        {"title": "refund issued", "body": "ORD-1, damaged", "priority": "high"},
        lambda state: state["tickets"],
    ),
    "disable_account": (
        {"user": "alice", "reason": "chargeback fraud"},
        lambda state: [account for account in state["accounts"] if account["status"] == "disabled"],
    ),
}


class Run:
    """One agent run: its own tenant in the service, its own idempotency keys."""

    def __init__(self, url: str, workspace: Path) -> None:
        self.run_id = f"run-{uuid.uuid4().hex[:12]}"
        self.url = url
        self.workspace = workspace

    def request(self, tool: str = "issue_refund", arguments: Arguments = REFUND, step: int = 1) -> ExecuteToolInput:
        proposal = ActionProposal(tool=tool, arguments=dict(arguments))
        return ExecuteToolInput(workspace=str(self.workspace), proposal=proposal, run_id=self.run_id, step=step)

    def canonical(self, tool: str, arguments: Arguments) -> dict[str, Any]:
        return TOOLS[tool].arguments.model_validate(arguments).model_dump(mode="json")

    def key(self, tool: str = "issue_refund", arguments: Arguments = REFUND, step: int = 1) -> str:
        """The key the executor derives: sha256(run id, step, tool, canonical arguments)."""
        return idempotency_key(self.run_id, step, tool, self.canonical(tool, arguments))

    async def record_intent(self, tool: str, arguments: Arguments, step: int = 1) -> str:
        """What a worker writes before it acts."""
        key = self.key(tool, arguments, step)
        intent = canonical_json(self.canonical(tool, arguments))
        await asyncio.to_thread(lab_deps().effects.record_intent, key, self.run_id, step, tool, intent)
        return key

    async def seed(self) -> None:
        async with self._client() as client:
            response = await client.post("/seed", json=SEED)
        assert response.status_code == 201, response.text

    async def state(self) -> State:
        async with self._client() as client:
            response = await client.get("/state")
        assert response.status_code == 200
        return response.json()

    def _client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(base_url=self.url, headers={"X-Tenant": self.run_id}, timeout=5)


@pytest.fixture
async def run(service: OpsServiceProcess, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    started = Run(service.url, tmp_path)
    await started.seed()
    return started


async def recorded(key: str) -> str | None:
    record = await asyncio.to_thread(lab_deps().effects.lookup, key)
    return None if record is None else record.state


def assert_acted(result: ToolResult) -> None:
    assert result.ok, result.error
    assert not result.replayed and not result.recovered
    assert result.backend == "service"


@pytest.mark.parametrize("tool", sorted(CALLS))
async def test_the_same_call_twice_acts_once(run: Run, tool: str) -> None:
    arguments, effects = CALLS[tool]
    first = await execute(lab_deps(), run.request(tool, arguments))
    again = await execute(lab_deps(), run.request(tool, arguments))
    assert_acted(first)
    assert again.replayed and again.ok
    assert again.output == first.output
    assert first.idempotency_key == again.idempotency_key == run.key(tool, arguments)
    assert len(effects(await run.state())) == 1


async def test_another_step_is_another_refund(run: Run) -> None:
    first = await execute(lab_deps(), run.request(step=1))
    second = await execute(lab_deps(), run.request(step=2))
    assert_acted(first)
    assert_acted(second)
    refunds = (await run.state())["refunds"]
    assert [refund["idempotency_key"] for refund in refunds] == [run.key(step=1), run.key(step=2)]


@pytest.mark.parametrize("tool", sorted(CALLS))
async def test_a_crash_after_the_effect_is_recovered_without_acting_again(run: Run, tool: str) -> None:
    arguments, effects = CALLS[tool]
    # The dying worker: intent recorded, effect made, result never recorded.
    key = await run.record_intent(tool, arguments)
    deps = lab_deps()
    ctx = ToolContext(
        run.workspace, run.run_id, run.run_id, 1, key, ProcessSandbox(deps.artifacts), deps.artifacts, run.url
    )
    made = await TOOLS[tool].run(ctx, TOOLS[tool].arguments.model_validate(arguments))

    result = await execute(lab_deps(), run.request(tool, arguments))
    assert result.ok and result.recovered and not result.replayed
    assert result.output == made
    assert await recorded(key) == "done"
    assert len(effects(await run.state())) == 1
    # Recovered is recorded: the next retry replays it.
    assert (await execute(lab_deps(), run.request(tool, arguments))).replayed


async def test_a_crash_before_the_effect_acts_once(run: Run) -> None:
    # The dying worker recorded its intent and never reached the service.
    key = await run.record_intent("issue_refund", REFUND)
    result = await execute(lab_deps(), run.request())
    assert_acted(result)
    assert await recorded(key) == "done"
    assert [refund["idempotency_key"] for refund in (await run.state())["refunds"]] == [key]


async def test_a_refusal_is_a_failed_result_recorded_and_replayed(run: Run) -> None:
    too_much = REFUND | {"amount_cents": 6000}
    result = await execute(lab_deps(), run.request(arguments=too_much))
    assert not result.ok and not result.replayed
    assert "422" in (result.error or "")
    assert "exceeds the 5000 cents still refundable on order 'ORD-1'" in (result.error or "")
    assert await recorded(run.key(arguments=too_much)) == "done"
    again = await execute(lab_deps(), run.request(arguments=too_much))
    assert again.replayed and not again.ok and again.error == result.error
    assert (await run.state())["refunds"] == []


async def test_no_service_configured_is_a_failed_result(run: Run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_LAB_OPS_URL")
    result = await execute(lab_deps(), run.request())
    assert not result.ok
    assert result.error == "no operations service is configured (set AGENT_LAB_OPS_URL)"


async def test_service_down_is_retried_never_recorded_then_acts_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    service = OpsServiceProcess(tmp_path / "ops.sqlite")
    try:
        url = await service.start()
        monkeypatch.setenv("AGENT_LAB_OPS_URL", url)
        run = Run(url, tmp_path)
        await run.seed()
        await service.stop()

        with pytest.raises(ToolUnavailable, match="unreachable"):
            await execute(lab_deps(), run.request())
        # Attempted, outcome unknown: a retry must ask the service before acting.
        assert await recorded(run.key()) == "intent"
        with pytest.raises(ToolUnavailable, match="cannot check for an earlier effect"):
            await execute(lab_deps(), run.request())  # the retry's probe cannot reach the service either

        assert await service.start() == url  # same database, same port
        result = await execute(lab_deps(), run.request())
        assert_acted(result)
        assert len((await run.state())["refunds"]) == 1
        assert (await execute(lab_deps(), run.request())).replayed
    finally:
        await service.stop()


async def test_the_activity_turns_service_down_into_a_retryable_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv("AGENT_LAB_OPS_URL", url)
    run = Run(url, tmp_path)
    with pytest.raises(ApplicationError) as raised:
        call = ExecuteAndCheckInput(execution=run.request())
        await ActivityEnvironment().run(FusedActivities(lab_deps()).execute_and_check, call)
    assert raised.value.type == "ToolUnavailable"
    assert raised.value.non_retryable is False
    assert await recorded(run.key()) == "intent"
