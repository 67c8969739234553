"""Forking a run that acted on the operations service, counted by the two servers it talks to.

The parent refunds a duplicate charge and opens a ticket, its model an OpenAI-compatible server
that counts the completions it is asked for; the operations service logs every request it
answers. A fork after the refund asks the model only for its own steps and never posts a
refund: its world holds the parent's refund, copied. A fork before the refund makes a refund
of its own, in its own world, and `diff` shows where it parted from its parent.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from agent.providers import completions
from agent.providers.prompts import answer_text
from contracts import ActionProposal, ProviderConfig, RunResult, RunState
from host.build import build_worker
from lab.invariants import check_run, fetch_generations, gather
from lab.runs.catalog import load_task
from lab.runs.fork import effect_keys_through, fork_request
from lab.runs.run_diff import diff_runs, read_run
from lab.runs.run_request import build_request
from ops_service import OpsServiceProcess
from tests.fake_openai_server import FakeOpenAIServer
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from tests.test_ops_tasks import tenant_state

pytestmark = pytest.mark.timeout(240)
KEY_ENV = "AGENT_LAB_TEST_FORK_KEY"
REASON = "SR-4471: duplicate charge of 4,200 cents on o-1001"

READ = ActionProposal(kind="tool_call", thought="Read the request.", tool="read_file", arguments={"path": "README.md"})
TICKET = ActionProposal(
    kind="tool_call",
    thought="Open the ticket.",
    tool="create_ticket",
    arguments={
        "title": "Duplicate charge refunded: o-1001",
        "body": "Refunded 4,200 cents once.",
        "priority": "normal",
    },
)


def refund(reason: str) -> ActionProposal:
    arguments = {"order_id": "o-1001", "amount_cents": 4200, "reason": reason}
    return ActionProposal(kind="tool_call", thought="Refund the duplicate.", tool="issue_refund", arguments=arguments)


@pytest.fixture
def model(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAIServer]:
    monkeypatch.setenv(KEY_ENV, "sk-fork")
    with FakeOpenAIServer(api_key="sk-fork") as server:
        yield server
    assert server.problems == []


@pytest.fixture(autouse=True)
async def close_clients() -> AsyncIterator[None]:
    yield
    await completions.aclose_clients()


@pytest.fixture
def ops_url(service: OpsServiceProcess, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    return service.url


def completions_asked(model: FakeOpenAIServer) -> int:
    return sum(request.path.endswith("/chat/completions") for request in model.requests)


def posts(service: OpsServiceProcess, path: str, tenant: str) -> int:
    """The service's own count: the requests it logged for `path` in `tenant`'s world."""
    line = re.compile(rf" POST {re.escape(path)} tenant={re.escape(tenant)} \d{{3}} ")
    return sum(1 for text in service.log_path.read_text().splitlines() if line.search(text))


def answer(model: FakeOpenAIServer, *proposals: ActionProposal) -> None:
    for proposal in proposals:
        model.answer(answer_text(proposal))


async def test_a_fork_after_the_refund_never_refunds_again_and_asks_only_for_its_own_steps(
    dev_env: WorkflowEnvironment, task_queue: str, model: FakeOpenAIServer, service: OpsServiceProcess, ops_url: str
) -> None:
    client, deps = dev_env.client, lab_deps()
    provider = ProviderConfig(kind="openai", base_url=model.base_url, model="fake", api_key_env=KEY_ENV, seed=7)
    model.answer(json.dumps({"summary": "Refund o-1001's duplicate charge once; open one ticket.", "constraints": []}))
    plan = {"tasks": [{"id": "refund", "title": "Refund once, open a ticket", "instructions": "", "depends_on": []}]}
    model.answer(json.dumps(plan))
    answer(model, READ, refund(REASON), TICKET)
    request = build_request(load_task("refund-duplicate-charge"), "durable").model_copy(update={"provider": provider})

    async with build_worker(client, task_queue):
        parent: RunResult = await execute_run(client, request, task_queue)
        assert parent.outcome == RunState.COMPLETED, parent.reason
        assert [step.proposal for step in parent.steps] == [READ, refund(REASON), TICKET]
        # The goal, the plan, three steps: the run ends once every postcondition holds.
        assert completions_asked(model) == 5
        assert posts(service, "/refunds", request.world_id) == 1

        # After step 2, the refund: the fork asks for step 3 only, and posts no refund.
        after = await fork_request(client, deps, parent.run_id, 2, None)
        assert after.fork is not None and after.fork.parent_world_id == request.world_id
        assert (
            after.fork.effect_keys == effect_keys_through(deps.ledgers, parent.run_id, 2)
            and len(after.fork.effect_keys) == 1
        )
        answer(model, TICKET)
        forked = await execute_run(client, after, task_queue)

        # Before step 2: the fork refunds, once, in its own world, with a reason of its own.
        before = await fork_request(client, deps, parent.run_id, 1, None)
        assert before.fork is not None and before.fork.effect_keys == []
        answer(model, refund("duplicate charge, refunded from a fork"), TICKET)
        refunding = await execute_run(client, before, task_queue)
        # Every rule holds of all three: one effect per key, approvals, budgets, commits, and
        # ledger and history telling one story (a fork's history holds its own steps only).
        for run_id in (parent.run_id, after.run_id, before.run_id):
            evidence = gather(
                run_id, deps.ledgers.path(run_id), await fetch_generations(client, run_id), deps.artifacts
            )
            report = check_run(evidence)
            assert report.clean, (run_id, [str(found) for found in report.violations])

    assert forked.outcome == RunState.COMPLETED, forked.reason
    assert forked.steps[:2] == parent.steps[:2]
    assert completions_asked(model) == 5 + 1 + 2 and model.pending() == 0
    # Counted by the service: no refund posted in the fork's world, one ticket; its world
    # holds the parent's refund (its key and id), and the parent's world is untouched.
    assert posts(service, "/refunds", after.world_id) == 0
    assert posts(service, "/tickets", after.world_id) == 1
    fork_world, parent_world = (
        await tenant_state(ops_url, after.world_id),
        await tenant_state(ops_url, request.world_id),
    )
    assert fork_world["refunds"] == parent_world["refunds"] and len(parent_world["refunds"]) == 1
    assert [ticket["idempotency_key"] for ticket in fork_world["tickets"]][-1] != parent_world["tickets"][-1][
        "idempotency_key"
    ]  # the fork's own ticket
    assert len(parent_world["tickets"]) == len(fork_world["tickets"]) == 2  # the seeded one and one opened

    assert refunding.outcome == RunState.COMPLETED, refunding.reason
    assert posts(service, "/refunds", before.world_id) == 1
    [own] = (await tenant_state(ops_url, before.world_id))["refunds"]
    assert own["reason"] == "duplicate charge, refunded from a fork"
    assert own["idempotency_key"] not in after.fork.effect_keys
    assert diff_runs(read_run(deps.ledgers, parent.run_id), read_run(deps.ledgers, before.run_id)).first_difference == 2
    assert (
        diff_runs(read_run(deps.ledgers, parent.run_id), read_run(deps.ledgers, after.run_id)).first_difference is None
    )

    # A fork of the fork, after its step 3: its world has the grandparent's refund and the
    # fork's ticket, each copied from the fork's world.
    assert effect_keys_through(deps.ledgers, after.run_id, 3) == [
        *after.fork.effect_keys,
        fork_world["tickets"][-1]["idempotency_key"],
    ]
    assert effect_keys_through(deps.ledgers, after.run_id, 1) == []


async def test_a_fork_whose_parent_world_lacks_an_effect_is_refused(
    dev_env: WorkflowEnvironment, task_queue: str, service: OpsServiceProcess, ops_url: str, tmp_path: Path
) -> None:
    """A world that is not the one the parent's ledger describes (here: another service's
    database, where the parent's tenant was never made) is not forked into a wrong start."""
    client, deps = dev_env.client, lab_deps()
    request = build_request(load_task("refund-duplicate-charge"), "durable")
    async with build_worker(client, task_queue):
        parent = await execute_run(client, request, task_queue)
        assert parent.outcome == RunState.COMPLETED, parent.reason
        fork = await fork_request(client, deps, parent.run_id, 2, None)
    async with OpsServiceProcess(tmp_path / "other.sqlite") as other:
        # The fork's worker is handed the other service: its world is to be made there.
        elsewhere = f"{task_queue}-other"
        async with build_worker(client, elsewhere, dependencies=lab_deps(ops_url=other.url)):
            failed = await execute_run(client, fork, elsewhere)
    assert failed.outcome == RunState.FAILED
    assert "never seeded" in failed.reason, failed.reason
