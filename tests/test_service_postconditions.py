"""`service_count` postconditions: counts of rows in the run's tenant of the real operations
service, and a failure with a reason, never an exception, when there is no state to read."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml
from pydantic import TypeAdapter, ValidationError
from temporalio.testing import ActivityEnvironment

from activities.postconditions import PostconditionActivities
from agent import ops_world
from agent.postconditions import check
from contracts import CheckPostconditionsInput, FileContains, Postcondition, PostconditionOutcome, TaskSpec
from contracts.postconditions import SERVICE_FIELDS, ServiceCount
from ops_service import OpsServiceProcess
from tests.conftest import free_port
from tests.lab_dependencies import lab_deps

SEED = {
    "orders": [
        {"order_id": "o-1", "customer": "c-1", "amount_cents": 5000},
        {"order_id": "o-2", "customer": "c-2", "amount_cents": 5000},
    ],
    "accounts": [
        {"user": "alice", "email": "alice@example.com"},
        {"user": "bob", "email": "bob@example.com"},
        {"user": "erin", "email": "erin@example.com", "status": "disabled"},
    ],
    "tickets": [{"title": "old", "body": "done long ago", "status": "closed"}],
}


class World:
    """A tenant of its own, acted on directly through the service's API."""

    def __init__(self, url: str) -> None:
        self.id = f"world-{uuid.uuid4().hex[:12]}"
        self._url = url

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"X-Tenant": self.id, "Idempotency-Key": uuid.uuid4().hex}
        async with httpx.AsyncClient(base_url=self._url, headers=headers, timeout=5) as client:
            response = await client.post(path, json=body)
        assert response.is_success, response.text
        return response.json()


@pytest.fixture
async def world(service: OpsServiceProcess, monkeypatch: pytest.MonkeyPatch) -> World:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    seeded = World(service.url)
    await seeded.post("/seed", SEED)
    # o-1 refunded twice (a duplicated effect), o-2 once; one ticket; bob disabled.
    for order_id, amount in [("o-1", 1500), ("o-1", 1500), ("o-2", 700)]:
        await seeded.post("/refunds", {"order_id": order_id, "amount_cents": amount, "reason": "test"})
    await seeded.post("/tickets", {"title": "Refund o-2", "body": "refunded 700", "priority": "high"})
    await seeded.post("/accounts/bob/disable", {"reason": "left"})
    return seeded


def count(resource: str, expect: int, **where: str | int | bool) -> ServiceCount:
    return ServiceCount(resource=resource, where=where, expect=expect)  # type: ignore[arg-type]


async def outcomes(world_id: str | None, *postconditions: Postcondition) -> list[PostconditionOutcome]:
    return (await check(lab_deps(), Path("/nonexistent"), list(postconditions), world_id)).outcomes


async def holds(world: World, postcondition: ServiceCount) -> bool:
    [outcome] = await outcomes(world.id, postcondition)
    return outcome.passed


# --- each resource, `where` matching --------------------------------------------------------


async def test_refunds_are_counted_by_their_fields(world: World) -> None:
    assert await holds(world, count("refunds", 2, order_id="o-1"))
    assert await holds(world, count("refunds", 2, order_id="o-1", amount_cents=1500))
    assert await holds(world, count("refunds", 1, order_id="o-2", amount_cents=700))
    assert await holds(world, count("refunds", 0, order_id="o-2", amount_cents=1500))
    assert await holds(world, count("refunds", 3))


async def test_a_duplicated_refund_fails_exactly_one(world: World) -> None:
    [outcome] = await outcomes(world.id, count("refunds", 1, order_id="o-1"))
    assert not outcome.passed
    assert outcome.detail == "found 2"
    assert outcome.description == "service refunds where order_id='o-1': exactly 1"


async def test_tickets_are_counted_by_their_fields(world: World) -> None:
    assert await holds(world, count("tickets", 1, title="Refund o-2"))
    assert await holds(world, count("tickets", 1, status="open"))
    assert await holds(world, count("tickets", 1, status="closed", title="old"))
    assert await holds(world, count("tickets", 1, priority="high"))
    assert await holds(world, count("tickets", 2))
    assert not await holds(world, count("tickets", 1))


async def test_accounts_are_counted_by_their_fields(world: World) -> None:
    assert await holds(world, count("accounts", 1, user="bob", status="disabled"))
    assert await holds(world, count("accounts", 0, user="alice", status="disabled"))
    assert await holds(world, count("accounts", 1, status="active"))
    assert await holds(world, count("accounts", 2, status="disabled"))


async def test_values_match_only_with_their_own_type(world: World) -> None:
    # "1500" is not 1500, and True is not 1: a YAML slip must not pass by coincidence.
    assert await holds(world, count("refunds", 0, amount_cents="1500"))
    assert await holds(world, count("refunds", 0, amount_cents=True))


async def test_expect_zero_holds_when_nothing_matches(world: World) -> None:
    assert await holds(world, count("refunds", 0, order_id="o-404"))
    assert not await holds(world, count("refunds", 0, order_id="o-1"))


async def test_an_unseeded_tenant_is_counted_and_says_so(service: OpsServiceProcess, monkeypatch) -> None:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    [outcome] = await outcomes(f"never-{uuid.uuid4().hex[:8]}", count("refunds", 0))
    assert outcome.passed
    assert "was never seeded" in outcome.detail


async def test_tenants_are_judged_apart(world: World, service: OpsServiceProcess) -> None:
    other = World(service.url)
    await other.post("/seed", SEED)
    assert await holds(other, count("refunds", 0))
    assert await holds(world, count("refunds", 3))


async def test_one_check_reads_the_state_once(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    original = ops_world.world_state

    async def counted(url: str | None, world_id: str) -> dict[str, Any]:
        reads.append(world_id)
        return await original(url, world_id)

    monkeypatch.setattr(ops_world, "world_state", counted)
    result = await check(lab_deps(), Path("/nonexistent"), [count("refunds", 3), count("tickets", 2)], world.id)
    assert result.passed
    assert reads == [world.id]


async def test_service_and_file_postconditions_are_checked_together(world: World, tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("refunded\n")
    both = [FileContains(path="notes.md", text="refunded"), count("refunds", 3)]
    result = await check(lab_deps(), tmp_path, both, world.id)
    assert result.passed, result.failures()


async def test_the_activity_reads_the_world_of_its_input(world: World, tmp_path: Path) -> None:
    request = CheckPostconditionsInput(
        workspace=str(tmp_path), postconditions=[count("refunds", 2, order_id="o-1")], world_id=world.id
    )
    assert (await ActivityEnvironment().run(PostconditionActivities(lab_deps()).check_postconditions, request)).passed


# --- nothing to read: failed, with the reason, never raised ----------------------------------


async def test_no_service_configured_fails_with_a_detail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_LAB_OPS_URL", raising=False)
    [outcome] = await outcomes("some-world", count("refunds", 0))
    assert not outcome.passed
    assert "no operations service is configured" in outcome.detail
    assert "AGENT_LAB_OPS_URL" in outcome.detail


async def test_no_world_id_fails_with_a_detail(world: World) -> None:
    for world_id in (None, ""):
        [outcome] = await outcomes(world_id, count("refunds", 0))
        assert not outcome.passed
        assert "no world id" in outcome.detail


async def test_an_unreachable_service_fails_with_a_detail(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{free_port()}"
    monkeypatch.setenv("AGENT_LAB_OPS_URL", url)
    first, second = await outcomes("some-world", count("refunds", 0), count("tickets", 0))
    assert not first.passed and not second.passed
    assert first.detail.startswith(f"operations service unreachable at {url}: ConnectError")
    assert second.detail == first.detail


async def test_an_unusable_url_fails_with_a_detail(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", "ftp://127.0.0.1:1")
    [outcome] = await outcomes("some-world", count("refunds", 0))
    assert not outcome.passed
    assert "is not a usable http URL" in outcome.detail


async def test_a_refused_request_fails_with_the_services_message(service: OpsServiceProcess, monkeypatch) -> None:
    monkeypatch.setenv("AGENT_LAB_OPS_URL", service.url)
    # The service refuses a tenant name it cannot take.
    [outcome] = await outcomes("x" * 200, count("refunds", 0))
    assert not outcome.passed
    assert "(400)" in outcome.detail and "X-Tenant" in outcome.detail


# --- the contract --------------------------------------------------------------------------


def test_a_task_spec_declares_it_in_yaml_with_typed_values() -> None:
    spec = TaskSpec.model_validate(
        yaml.safe_load(
            """
            id: t
            title: t
            goal: g
            postconditions:
              - {kind: service_count, resource: refunds, where: {order_id: o-1001, amount_cents: 4200}, expect: 1}
              - {kind: service_count, resource: accounts, where: {status: disabled}, expect: 0}
              - {kind: service_count, resource: tickets, expect: 2}
            """
        )
    )
    refunds, accounts, tickets = spec.postconditions
    assert refunds == ServiceCount(resource="refunds", where={"order_id": "o-1001", "amount_cents": 4200}, expect=1)
    assert accounts.describe() == "service accounts where status='disabled': exactly 0"
    assert tickets.describe() == "service tickets: exactly 2"


def test_values_keep_their_type_through_json() -> None:
    """What a workflow's history carries: 4200 stays a number, "4200" a string, true a bool."""
    adapter = TypeAdapter(Postcondition)
    original = count("refunds", 1, amount_cents=4200, order_id="4200", reason=True)
    again = adapter.validate_json(adapter.dump_json(original))
    assert again == original
    assert [type(value) for value in again.where.values()] == [int, str, bool]


def test_a_field_the_resource_lacks_is_refused() -> None:
    with pytest.raises(ValidationError, match="tickets have no field order_id"):
        count("tickets", 1, order_id="o-1001")


@pytest.mark.parametrize("bad", [{"resource": "orders"}, {"expect": -1}, {"where": {"status": 1.5}}])
def test_bad_values_are_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ServiceCount.model_validate({"resource": "refunds", "expect": 0} | bad)


async def test_the_fields_it_knows_are_the_services(world: World) -> None:
    """SERVICE_FIELDS is a copy of the service's row shapes: this keeps the copy honest."""
    state = await ops_world.world_state(lab_deps().ops_url, world.id)
    assert {resource: frozenset(state[resource][0]) for resource in SERVICE_FIELDS} == SERVICE_FIELDS
