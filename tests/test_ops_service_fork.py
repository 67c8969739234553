"""`POST /fork`: a tenant made from another as it was after some of its effects, the world a
forked agent run starts in. The named effects are copied, never made again; the others are
left out (an account disabled under another key is active in the fork)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from ops_service import OpsServiceProcess
from ops_service.idempotency import resource_id
from tests.test_ops_service import REFUND, SEED, post, state


@pytest.fixture
async def http(service: OpsServiceProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=service.url, timeout=5) as client:
        yield client


@pytest.fixture
async def parent(http: httpx.AsyncClient) -> str:
    """A seeded tenant with four effects, made in this order: refund k1, ticket k2, account
    alice disabled under k3, refund k4."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    assert (await http.post("/seed", json=SEED, headers={"X-Tenant": name})).status_code == 201
    made = [
        await post(http, name, "/refunds", REFUND, key="k1"),
        await post(http, name, "/tickets", {"title": "refunded", "body": "ORD-1", "priority": "low"}, key="k2"),
        await post(http, name, "/accounts/alice/disable", {"reason": "fraud"}, key="k3"),
        await post(http, name, "/refunds", REFUND | {"order_id": "ORD-2"}, key="k4"),
    ]
    assert [response.status_code for response in made] == [201, 201, 201, 201]
    return name


async def fork(http: httpx.AsyncClient, parent: str, keys: list[str], name: str | None = None) -> httpx.Response:
    return await post(http, name or f"f-{uuid.uuid4().hex[:12]}", "/fork", {"parent": parent, "keys": keys})


def _keys(rows: list[dict[str, Any]], field: str = "idempotency_key") -> list[str | None]:
    return [row[field] for row in rows]


async def test_a_fork_holds_the_seed_and_the_named_effects_only(http: httpx.AsyncClient, parent: str) -> None:
    before = await state(http, parent)
    response = await fork(http, parent, ["k1", "k2"])
    assert response.status_code == 201, response.text
    forked = await state(http, response.json()["tenant"])
    assert response.json()["missing"] == [] and response.json()["forked"] is True

    # The refund made under k1 is the parent's row, id and time included; k4's is not there.
    assert forked["refunds"] == [before["refunds"][0]]
    assert forked["orders"] == [
        order | {"refunded_cents": REFUND["amount_cents"] if order["order_id"] == "ORD-1" else 0}
        for order in before["orders"]
    ]
    assert _keys(forked["tickets"]) == [None, "k2"]  # the seeded ticket, then k2's
    assert forked["tickets"] == before["tickets"]
    # Alice was disabled under k3, which the fork does not have: she is active, as seeded.
    alice, mallory = forked["accounts"]
    assert alice == {
        "user": "alice", "email": "alice@example.com", "status": "active",
        "disabled_reason": None, "disabled_at": None, "disabled_by_key": None,
    }  # fmt: skip
    assert mallory == before["accounts"][1]  # seeded disabled, kept so

    # The parent is as it was.
    assert await state(http, parent) == before


async def test_the_fork_goes_on_as_a_world_of_its_own(http: httpx.AsyncClient, parent: str) -> None:
    name = (await fork(http, parent, ["k1"])).json()["tenant"]
    # k1 again answers with the copied refund, replayed: no second refund.
    again = await post(http, name, "/refunds", REFUND, key="k1")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    # Alice can be disabled in the fork, under a key of its own.
    assert (await post(http, name, "/accounts/alice/disable", {"reason": "x"}, key="mine")).status_code == 201
    # A new refund's id is its key's (tests/test_ops_fork_ids.py: none a fork's copies hold).
    made = await post(http, name, "/refunds", REFUND | {"order_id": "ORD-2"}, key="k5")
    assert made.json()["refund_id"] == resource_id("rf", "k5")
    assert len((await state(http, parent))["refunds"]) == 2
    assert _keys((await state(http, name))["refunds"]) == ["k1", "k5"]


async def test_forking_again_changes_nothing_and_names_missing_keys(http: httpx.AsyncClient, parent: str) -> None:
    first = await fork(http, parent, ["k1", "nothing-made-under-this"])
    name = first.json()["tenant"]
    assert first.status_code == 201 and first.json()["missing"] == ["nothing-made-under-this"]
    again = await fork(http, parent, ["k1", "k2", "k4"], name=name)
    assert again.status_code == 200 and again.json()["forked"] is False
    assert _keys((await state(http, name))["refunds"]) == ["k1"]


@pytest.mark.parametrize(
    ("body", "status", "problem"),
    [
        ({"parent": "never-seeded", "keys": []}, 404, "never seeded"),
        ({"parent": "PARENT", "keys": "k1"}, 400, "keys must be a list"),
        ({"parent": "PARENT", "keys": [1]}, 400, "keys[0] must be an idempotency key"),
        ({"parent": "PARENT", "keys": ["k1", "k1"]}, 400, "duplicate key 'k1'"),
        ({"keys": []}, 400, "body.parent is required"),
        ({"parent": "PARENT", "keys": [], "at": 3}, 400, "unexpected field(s) at"),
    ],
)
async def test_bad_forks_are_refused(
    http: httpx.AsyncClient, parent: str, body: dict[str, Any], status: int, problem: str
) -> None:
    if body.get("parent") == "PARENT":
        body = body | {"parent": parent}
    response = await post(http, f"f-{uuid.uuid4().hex[:12]}", "/fork", body)
    assert response.status_code == status and problem in response.json()["error"], response.text
    itself = await post(http, parent, "/fork", {"parent": parent, "keys": []})
    assert itself.status_code == 400 and "into itself" in itself.json()["error"]
