"""The API: which method and path does what. HTTP mechanics (reading, writing, logging) live
in handler.py; the rules for each resource in payments, tickets, accounts and tenants.

Creating requests carry an Idempotency-Key header: 201 when this request created the
resource, 200 with the same resource (and `Idempotent-Replayed: true`) when the key was seen.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

from ops_service import accounts, bodies, forks, payments, tenants, tickets
from ops_service.database import Database
from ops_service.errors import BadRequest, NotAllowed, NotFound
from ops_service.idempotency import require_key

_MAX_TENANT_LENGTH = 128


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: Mapping[str, str]
    tenant_header: str | None
    key_header: str | None
    raw_body: bytes

    def tenant(self) -> str:
        tenant = (self.tenant_header or "").strip()
        if not tenant:
            raise BadRequest("the X-Tenant header is required")
        if len(tenant) > _MAX_TENANT_LENGTH or not tenant.isprintable():
            raise BadRequest(f"the X-Tenant header must be printable and at most {_MAX_TENANT_LENGTH} characters")
        return tenant

    def idempotency_key(self) -> str:
        return require_key(self.key_header)

    def json(self) -> object:
        try:
            return json.loads(self.raw_body)
        except (ValueError, RecursionError) as error:
            raise BadRequest(f"the body is not valid JSON: {error}") from None


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any
    headers: Mapping[str, str] = field(default_factory=dict)


def health(database: Database, request: Request) -> Reply:
    return Reply(200, {"ok": True})


def seed(database: Database, request: Request) -> Reply:
    tenant, data = request.tenant(), bodies.seed(request.json())
    with database.writing() as db:
        seeded = tenants.seed(db, tenant, data)
    return Reply(201 if seeded else 200, {"tenant": tenant, "seeded": seeded})


def fork(database: Database, request: Request) -> Reply:
    """A tenant made from another as of some of its effects (forks.py). `missing` names the
    keys the parent holds no effect for: a caller that expected them all can tell."""
    tenant, data = request.tenant(), bodies.fork_request(request.json())
    if tenant == data.parent:
        raise BadRequest("a tenant cannot be forked into itself: name a new tenant in X-Tenant")
    with database.writing() as db:
        forked, missing = forks.fork(db, tenant, data)
    return Reply(
        201 if forked else 200, {"tenant": tenant, "parent": data.parent, "forked": forked, "missing": missing}
    )


def state(database: Database, request: Request) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, tenants.state(db, tenant))


def create_refund(database: Database, request: Request) -> Reply:
    tenant, key, body = request.tenant(), request.idempotency_key(), bodies.refund_request(request.json())
    with database.writing() as db:
        return _created(*payments.create_refund(db, tenant, key, body))


def list_refunds(database: Database, request: Request) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, payments.refunds(db, tenant, request.query.get("order_id")))


def refund_by_key(database: Database, request: Request, key: str) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, payments.refund_by_key(db, tenant, key))


def create_ticket(database: Database, request: Request) -> Reply:
    tenant, key, body = request.tenant(), request.idempotency_key(), bodies.ticket_request(request.json())
    with database.writing() as db:
        return _created(*tickets.create_ticket(db, tenant, key, body))


def list_tickets(database: Database, request: Request) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, tickets.tickets(db, tenant))


def ticket_by_key(database: Database, request: Request, key: str) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, tickets.ticket_by_key(db, tenant, key))


def disable_account(database: Database, request: Request, user: str) -> Reply:
    tenant, key, body = request.tenant(), request.idempotency_key(), bodies.disable_request(user, request.json())
    with database.writing() as db:
        return _created(*accounts.disable_account(db, tenant, key, body))


def get_account(database: Database, request: Request, user: str) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, accounts.account(db, tenant, user))


def account_disabled_by_key(database: Database, request: Request, key: str) -> Reply:
    tenant = request.tenant()
    with database.reading() as db:
        return Reply(200, accounts.account_disabled_by_key(db, tenant, key))


Route = Callable[..., Reply]
_SEGMENT = "([^/]+)"
# First match wins: `disabled-by-key/{key}` comes before `{user}`.
_ROUTES: tuple[tuple[str, str, Route], ...] = (
    ("GET", "/healthz", health),
    ("POST", "/seed", seed),
    ("POST", "/fork", fork),
    ("GET", "/state", state),
    ("POST", "/refunds", create_refund),
    ("GET", "/refunds", list_refunds),
    ("GET", f"/refunds/by-key/{_SEGMENT}", refund_by_key),
    ("POST", "/tickets", create_ticket),
    ("GET", "/tickets", list_tickets),
    ("GET", f"/tickets/by-key/{_SEGMENT}", ticket_by_key),
    ("GET", f"/accounts/disabled-by-key/{_SEGMENT}", account_disabled_by_key),
    ("POST", f"/accounts/{_SEGMENT}/disable", disable_account),
    ("GET", f"/accounts/{_SEGMENT}", get_account),
)
_COMPILED = tuple((method, re.compile(pattern), route) for method, pattern, route in _ROUTES)


def dispatch(database: Database, request: Request) -> Reply:
    allowed = []
    for method, pattern, route in _COMPILED:
        match = pattern.fullmatch(request.path)
        if match is None:
            continue
        if method != request.method:
            allowed.append(method)
            continue
        return route(database, request, *(unquote(part) for part in match.groups()))
    if allowed:
        raise NotAllowed(f"{request.method} is not allowed on {request.path}; use {', '.join(allowed)}")
    raise NotFound(f"no such endpoint: {request.method} {request.path}")


def _created(resource: dict[str, Any], created: bool) -> Reply:
    return Reply(201 if created else 200, resource, {"Idempotent-Replayed": "false" if created else "true"})
