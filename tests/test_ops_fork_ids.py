"""Ids in the operations service that no fork can make collide. A fork copies some of its
parent's effect rows, ids included (`POST /fork`). Ids minted from a count (`rf_{count+1}`) were
then ids the fork already held: the next refund failed on the table's key with HTTP 500, which
the refund tool takes for an outage and retries for 20 minutes. An id now derives from the
idempotency key the resource is made under, unique in its tenant, and a constraint a request
breaks all the same is its 409, never a 500."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from ops_service import OpsServiceProcess
from ops_service.database import Database
from ops_service.errors import Conflict
from tests.test_ops_service import REFUND, SEED, post, state

TICKET = {"title": "refunded", "body": "ORD-1", "priority": "low"}


@pytest.fixture
async def http(service: OpsServiceProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=service.url, timeout=5) as client:
        yield client


@pytest.fixture
async def parent(http: httpx.AsyncClient) -> str:
    """A seeded tenant (one seeded ticket) with two refunds (k1, k2) and two tickets (k3, k4)."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    assert (await http.post("/seed", json=SEED, headers={"X-Tenant": name})).status_code == 201
    made = [
        await post(http, name, "/refunds", REFUND, key="k1"),
        await post(http, name, "/refunds", REFUND | {"order_id": "ORD-2"}, key="k2"),
        await post(http, name, "/tickets", TICKET, key="k3"),
        await post(http, name, "/tickets", TICKET | {"title": "again"}, key="k4"),
    ]
    assert [response.status_code for response in made] == [201] * 4
    return name


def ids(world: dict[str, object]) -> set[str]:
    refunds, tickets = world["refunds"], world["tickets"]
    assert isinstance(refunds, list) and isinstance(tickets, list)
    return {row["refund_id"] for row in refunds} | {row["ticket_id"] for row in tickets}


async def test_a_fork_holding_later_effects_only_makes_new_ones_with_ids_of_their_own(
    http: httpx.AsyncClient, parent: str
) -> None:
    # The fork holds the second refund and the second ticket, not the first ones: with ids
    # minted from a count, its next refund was `rf_2` and its next ticket `tk_3`, both taken.
    fork = f"f-{uuid.uuid4().hex[:12]}"
    forked = await post(http, fork, "/fork", {"parent": parent, "keys": ["k2", "k4"]})
    assert forked.status_code == 201, forked.text
    copied = await state(http, fork)

    refund = await post(http, fork, "/refunds", REFUND, key="k5")
    ticket = await post(http, fork, "/tickets", TICKET | {"title": "in the fork"}, key="k6")

    assert (refund.status_code, ticket.status_code) == (201, 201), (refund.text, ticket.text)
    made = {refund.json()["refund_id"], ticket.json()["ticket_id"]}
    assert not made & ids(copied)
    # Nor do they name any of the parent's resources, whose copies the fork holds: a report
    # that sets the two worlds side by side never takes one for the other.
    before = await state(http, parent)
    assert not made & ids(before)
    # The parent goes on too, and its new resources are not the fork's either.
    later = await post(http, parent, "/refunds", REFUND | {"order_id": "ORD-2"}, key="k7")
    assert later.status_code == 201 and later.json()["refund_id"] not in ids(await state(http, fork))
    # The copies are the parent's rows, ids included; each world's ids are its own, once each.
    after = await state(http, fork)
    assert [row["idempotency_key"] for row in after["refunds"]] == ["k2", "k5"]
    assert after["refunds"][0] == before["refunds"][1]
    assert len(ids(after)) == len(after["refunds"]) + len(after["tickets"])


async def test_an_id_is_the_same_for_the_same_request_and_another_for_another(
    http: httpx.AsyncClient, parent: str
) -> None:
    """Replayed under its key, a refund keeps its id; in a fork that copied it, too."""
    first = (await state(http, parent))["refunds"][0]
    again = await post(http, parent, "/refunds", REFUND, key="k1")
    assert again.status_code == 200 and again.json()["refund_id"] == first["refund_id"]
    fork = f"f-{uuid.uuid4().hex[:12]}"
    assert (await post(http, fork, "/fork", {"parent": parent, "keys": ["k1"]})).status_code == 201
    replayed = await post(http, fork, "/refunds", REFUND, key="k1")
    assert replayed.status_code == 200 and replayed.json()["refund_id"] == first["refund_id"]


def test_a_constraint_a_write_breaks_is_a_conflict_not_an_internal_error(tmp_path: Path) -> None:
    """The handler answers a ServiceError with its status and anything else with 500, which a
    client retries as an outage: a broken constraint is the request's, and said so (409)."""
    database = Database(tmp_path / "ops.sqlite")
    with database.writing() as db:
        db.execute("INSERT INTO tenants (tenant, seeded_at) VALUES ('t', 'now')")
    with pytest.raises(Conflict) as raised, database.writing() as db:
        db.execute("INSERT INTO tenants (tenant, seeded_at) VALUES ('t', 'later')")
    assert "UNIQUE constraint failed: tenants.tenant" in str(raised.value)
    assert "not applied" in str(raised.value)
    with database.reading() as db:  # rolled back: the first row is as it was
        assert [tuple(row) for row in db.execute("SELECT seeded_at FROM tenants")] == [("now",)]
