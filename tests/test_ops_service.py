"""The operations service over real HTTP, as its own process: tenants, idempotent creation,
every refusal a JSON error with the right status, and no input that takes it down."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from ops_service import OpsServiceProcess
from ops_service.idempotency import resource_id

SEED: dict[str, Any] = {
    "orders": [
        {"order_id": "ORD-1", "customer": "alice", "amount_cents": 5000},
        {"order_id": "ORD-2", "customer": "bob", "amount_cents": 20000},
    ],
    "accounts": [
        {"user": "alice", "email": "alice@example.com"},
        {"user": "mallory", "status": "disabled"},
    ],
    "tickets": [{"title": "printer on fire", "body": "again", "priority": "high"}],
}
REFUND = {"order_id": "ORD-1", "amount_cents": 1500, "reason": "damaged in transit"}


@pytest.fixture
async def http(service: OpsServiceProcess) -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(base_url=service.url, timeout=5) as client:
        yield client


@pytest.fixture
async def tenant(http: httpx.AsyncClient) -> str:
    """A fresh tenant, seeded."""
    name = f"t-{uuid.uuid4().hex[:12]}"
    response = await http.post("/seed", json=SEED, headers={"X-Tenant": name})
    assert response.status_code == 201, response.text
    return name


async def post(http: httpx.AsyncClient, tenant: str, path: str, body: Any, key: str | None = None) -> httpx.Response:
    headers = {"X-Tenant": tenant} | ({"Idempotency-Key": key} if key else {})
    return await http.post(path, json=body, headers=headers)


async def get(http: httpx.AsyncClient, tenant: str, path: str) -> httpx.Response:
    return await http.get(path, headers={"X-Tenant": tenant})


async def state(http: httpx.AsyncClient, tenant: str) -> dict[str, Any]:
    response = await get(http, tenant, "/state")
    assert response.status_code == 200
    return response.json()


def test_the_first_stdout_line_names_the_bound_port(service: OpsServiceProcess) -> None:
    assert service.running
    assert service.port > 0
    assert service.url == f"http://127.0.0.1:{service.port}"


async def test_seeding_again_is_a_no_op(http: httpx.AsyncClient, tenant: str) -> None:
    before = await state(http, tenant)
    again = await post(http, tenant, "/seed", {"orders": [{"order_id": "X", "customer": "x", "amount_cents": 1}]})
    assert again.status_code == 200
    assert again.json() == {"tenant": tenant, "seeded": False}
    assert await state(http, tenant) == before


async def test_state_holds_the_seed(http: httpx.AsyncClient, tenant: str) -> None:
    seen = await state(http, tenant)
    assert seen["seeded"] is True
    assert [(o["order_id"], o["amount_cents"], o["refunded_cents"]) for o in seen["orders"]] == [
        ("ORD-1", 5000, 0),
        ("ORD-2", 20000, 0),
    ]
    assert {a["user"]: a["status"] for a in seen["accounts"]} == {"alice": "active", "mallory": "disabled"}
    assert [(t["title"], t["priority"], t["idempotency_key"]) for t in seen["tickets"]] == [
        ("printer on fire", "high", None)
    ]
    assert seen["refunds"] == []


async def test_tenants_are_isolated(http: httpx.AsyncClient, tenant: str) -> None:
    other = f"t-{uuid.uuid4().hex[:12]}"
    assert (await post(http, tenant, "/refunds", REFUND, key="k1")).status_code == 201
    # The same key in another tenant is another request; the order does not exist there.
    assert (await post(http, other, "/refunds", REFUND, key="k1")).status_code == 404
    assert (await get(http, other, "/refunds/by-key/k1")).status_code == 404
    unseeded = await state(http, other)
    assert unseeded["seeded"] is False
    assert unseeded["orders"] == unseeded["refunds"] == unseeded["tickets"] == unseeded["accounts"] == []


async def test_a_refund_is_created_once_per_key(http: httpx.AsyncClient, tenant: str) -> None:
    first = await post(http, tenant, "/refunds", REFUND, key="k1")
    again = await post(http, tenant, "/refunds", REFUND, key="k1")
    assert first.status_code == 201 and first.headers["Idempotent-Replayed"] == "false"
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert first.json()["amount_cents"] == 1500 and first.json()["idempotency_key"] == "k1"
    seen = await state(http, tenant)
    assert len(seen["refunds"]) == 1
    assert seen["orders"][0]["refunded_cents"] == 1500


async def test_another_key_is_another_refund_visible_as_two_rows(http: httpx.AsyncClient, tenant: str) -> None:
    assert (await post(http, tenant, "/refunds", REFUND, key="k1")).status_code == 201
    assert (await post(http, tenant, "/refunds", REFUND, key="k2")).status_code == 201
    refunds = (await state(http, tenant))["refunds"]
    assert [r["refund_id"] for r in refunds] == [resource_id("rf", "k1"), resource_id("rf", "k2")]


async def test_concurrent_requests_with_one_key_make_one_refund(http: httpx.AsyncClient, tenant: str) -> None:
    responses = await asyncio.gather(*(post(http, tenant, "/refunds", REFUND, key="k1") for _ in range(8)))
    assert sorted(r.status_code for r in responses) == [200] * 7 + [201]
    assert len({r.json()["refund_id"] for r in responses}) == 1
    assert len((await state(http, tenant))["refunds"]) == 1


async def test_a_key_reused_with_another_body_conflicts(http: httpx.AsyncClient, tenant: str) -> None:
    assert (await post(http, tenant, "/refunds", REFUND, key="k1")).status_code == 201
    conflict = await post(http, tenant, "/refunds", REFUND | {"amount_cents": 1}, key="k1")
    assert conflict.status_code == 409
    assert "different request" in conflict.json()["error"]
    assert len((await state(http, tenant))["refunds"]) == 1


async def test_refund_of_an_unknown_order_is_404(http: httpx.AsyncClient, tenant: str) -> None:
    response = await post(http, tenant, "/refunds", REFUND | {"order_id": "ORD-404"}, key="k1")
    assert response.status_code == 404
    assert "ORD-404" in response.json()["error"]


async def test_refunds_never_exceed_the_order(http: httpx.AsyncClient, tenant: str) -> None:
    assert (await post(http, tenant, "/refunds", REFUND | {"amount_cents": 4000}, key="k1")).status_code == 201
    over = await post(http, tenant, "/refunds", REFUND | {"amount_cents": 1001}, key="k2")
    assert over.status_code == 422
    assert "1000 cents still refundable" in over.json()["error"]
    assert (await post(http, tenant, "/refunds", REFUND | {"amount_cents": 1000}, key="k3")).status_code == 201
    assert (await state(http, tenant))["orders"][0]["refunded_cents"] == 5000


async def test_refund_lookups(http: httpx.AsyncClient, tenant: str) -> None:
    made = (await post(http, tenant, "/refunds", REFUND, key="k1")).json()
    await post(http, tenant, "/refunds", REFUND | {"order_id": "ORD-2"}, key="k2")
    assert (await get(http, tenant, "/refunds/by-key/k1")).json() == made
    assert (await get(http, tenant, "/refunds/by-key/missing")).status_code == 404
    by_order = (await get(http, tenant, "/refunds?order_id=ORD-1")).json()
    assert by_order == [made]
    assert len((await get(http, tenant, "/refunds")).json()) == 2


async def test_tickets_are_created_once_per_key(http: httpx.AsyncClient, tenant: str) -> None:
    ticket = {"title": "refund issued", "body": "order ORD-1", "priority": "low"}
    first = await post(http, tenant, "/tickets", ticket, key="k1")
    again = await post(http, tenant, "/tickets", ticket, key="k1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert first.json()["ticket_id"] == resource_id("tk", "k1")  # the seeded one is tk_1
    assert (await post(http, tenant, "/tickets", ticket | {"priority": "high"}, key="k1")).status_code == 409
    assert (await get(http, tenant, "/tickets/by-key/k1")).json() == first.json()
    assert (await get(http, tenant, "/tickets/by-key/k2")).status_code == 404
    assert [t["ticket_id"] for t in (await get(http, tenant, "/tickets")).json()] == ["tk_1", resource_id("tk", "k1")]


async def test_disabling_an_account(http: httpx.AsyncClient, tenant: str) -> None:
    first = await post(http, tenant, "/accounts/alice/disable", {"reason": "fraud"}, key="k1")
    again = await post(http, tenant, "/accounts/alice/disable", {"reason": "fraud"}, key="k1")
    assert (first.status_code, again.status_code) == (201, 200)
    assert first.json()["status"] == "disabled" and first.json()["disabled_by_key"] == "k1"
    assert again.json() == first.json()
    assert (await get(http, tenant, "/accounts/alice")).json() == first.json()
    assert (await get(http, tenant, "/accounts/disabled-by-key/k1")).json() == first.json()
    assert (await get(http, tenant, "/accounts/disabled-by-key/k2")).status_code == 404


@pytest.mark.parametrize(
    ("user", "key", "status"),
    [("alice", "k2", 409), ("mallory", "k1", 409), ("nobody", "k1", 404)],
    ids=["disabled-under-another-key", "seeded-disabled", "unknown-user"],
)
async def test_disable_refusals(http: httpx.AsyncClient, tenant: str, user: str, key: str, status: int) -> None:
    if user == "alice":
        assert (await post(http, tenant, "/accounts/alice/disable", {"reason": "fraud"}, key="k1")).status_code == 201
    response = await post(http, tenant, f"/accounts/{user}/disable", {"reason": "fraud"}, key=key)
    assert response.status_code == status
    assert user in response.json()["error"]


@pytest.mark.parametrize(
    ("content", "headers", "problem"),
    [
        (b'{"order_id": "ORD-1",', {}, "not valid JSON"),
        (b"[1, 2]", {}, "must be a JSON object"),
        (b'{"order_id": "ORD-1", "reason": "r"}', {}, "amount_cents is required"),
        (b'{"order_id": "ORD-1", "amount_cents": "15", "reason": "r"}', {}, "integer number of cents"),
        (b'{"order_id": "ORD-1", "amount_cents": true, "reason": "r"}', {}, "integer number of cents"),
        (b'{"order_id": "ORD-1", "amount_cents": 0, "reason": "r"}', {}, "between 1 and"),
        (b'{"order_id": "ORD-1", "amount_cents": 5, "reason": "r", "extra": 1}', {}, "unexpected field(s) extra"),
        (b'{"order_id": "ORD-1", "amount_cents": 5, "reason": "r"}', {"Idempotency-Key": ""}, "Idempotency-Key"),
        (b'{"order_id": "ORD-1", "amount_cents": 5, "reason": "r"}', {"X-Tenant": ""}, "X-Tenant"),
    ],
    ids=["bad-json", "not-object", "missing", "string", "bool", "zero", "extra", "no-key", "no-tenant"],
)
async def test_bad_requests_are_400_with_a_json_error(
    http: httpx.AsyncClient, tenant: str, content: bytes, headers: dict[str, str], problem: str
) -> None:
    sent = {"X-Tenant": tenant, "Idempotency-Key": "k1", "Content-Type": "application/json"} | headers
    response = await http.post("/refunds", content=content, headers=sent)
    assert response.status_code == 400
    assert problem in response.json()["error"]
    assert (await state(http, tenant))["refunds"] == []


async def test_unknown_paths_and_methods(http: httpx.AsyncClient, tenant: str) -> None:
    missing = await get(http, tenant, "/payments")
    assert missing.status_code == 404 and "no such endpoint" in missing.json()["error"]
    wrong = await http.delete("/refunds", headers={"X-Tenant": tenant})
    assert wrong.status_code == 405 and "use POST, GET" in wrong.json()["error"]


async def test_seed_is_validated_as_a_whole(http: httpx.AsyncClient) -> None:
    name = f"t-{uuid.uuid4().hex[:12]}"
    twice = {"orders": [SEED["orders"][0], SEED["orders"][0]]}
    response = await post(http, name, "/seed", twice)
    assert response.status_code == 400 and "duplicate order_id" in response.json()["error"]
    assert (await state(http, name))["seeded"] is False


async def raw_exchange(service: OpsServiceProcess, data: bytes) -> bytes:
    reader, writer = await asyncio.open_connection("127.0.0.1", service.port)
    try:
        writer.write(data)
        await writer.drain()
        return await asyncio.wait_for(reader.read(), 5)
    finally:
        writer.close()
        await writer.wait_closed()


@pytest.mark.parametrize(
    ("data", "status"),
    [
        (b"garbage\r\n\r\n", b"400"),
        (b"GET /state HTTP/9.9\r\n\r\n", b"505"),
        (b"POST /refunds HTTP/1.1\r\nContent-Length: nope\r\nConnection: close\r\n\r\n", b"400"),
        (b"POST /refunds HTTP/1.1\r\nContent-Length: 99999999\r\nConnection: close\r\n\r\n", b"413"),
        (b"BREW /pot HTTP/1.1\r\nConnection: close\r\n\r\n", b"501"),
        (b"POST /seed HTTP/1.1\r\nX-Tenant: t\r\nContent-Length: 4\r\nConnection: close\r\n\r\n\xff\xfe\x00{", b"400"),
    ],
    ids=["request-line", "version", "length", "too-large", "method", "binary-body"],
)
async def test_malformed_http_gets_a_json_error_and_the_server_lives(
    service: OpsServiceProcess, http: httpx.AsyncClient, data: bytes, status: bytes
) -> None:
    answer = await raw_exchange(service, data)
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.split(b" ")[1] == status
    assert body.startswith(b'{"error":')
    assert service.running
    assert (await http.get("/healthz")).json() == {"ok": True}


async def test_a_client_that_vanishes_mid_request_does_not_hurt(
    service: OpsServiceProcess, http: httpx.AsyncClient
) -> None:
    _, writer = await asyncio.open_connection("127.0.0.1", service.port)
    writer.write(b"POST /refunds HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
    await writer.drain()
    writer.close()
    await writer.wait_closed()
    assert (await http.get("/healthz")).status_code == 200


async def test_requests_are_logged_one_line_each(service: OpsServiceProcess, http: httpx.AsyncClient) -> None:
    marker = f"t-{uuid.uuid4().hex[:12]}"
    await get(http, marker, "/state")
    await asyncio.sleep(0.05)  # the log line is written after the answer
    lines = [line for line in Path(service.log_path).read_text().splitlines() if marker in line]
    assert len(lines) == 1
    assert "GET /state" in lines[0] and " 200 " in lines[0]
