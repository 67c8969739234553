"""Request bodies, checked field by field: the service trusts nothing a client sends.

Every check failure is a BadRequest that names the field, so a caller (an agent's tool, a
grader's seed script) can tell what to fix. Unknown fields are refused, not ignored: a typo
in `amount_cents` must not turn into a refund of a default amount.
"""

from __future__ import annotations

from dataclasses import dataclass

from ops_service.errors import BadRequest
from ops_service.idempotency import MAX_KEY_LENGTH

PRIORITIES = ("low", "normal", "high", "urgent")
ACCOUNT_STATUSES = ("active", "disabled")
# Well inside SQLite's 64-bit integers, so sums of amounts never overflow.
_MAX_CENTS = 10**12


@dataclass(frozen=True)
class RefundRequest:
    order_id: str
    amount_cents: int
    reason: str


@dataclass(frozen=True)
class TicketRequest:
    title: str
    body: str
    priority: str


@dataclass(frozen=True)
class DisableRequest:
    user: str
    reason: str


@dataclass(frozen=True)
class SeedOrder:
    order_id: str
    customer: str
    amount_cents: int


@dataclass(frozen=True)
class SeedAccount:
    user: str
    email: str
    status: str


@dataclass(frozen=True)
class SeedTicket:
    title: str
    body: str
    priority: str
    status: str


@dataclass(frozen=True)
class ForkRequest:
    """A tenant made from `parent` as it was when only the effects made under `keys` had
    happened: its seed, and those effects' rows."""

    parent: str
    keys: tuple[str, ...]


@dataclass(frozen=True)
class Seed:
    orders: tuple[SeedOrder, ...]
    accounts: tuple[SeedAccount, ...]
    tickets: tuple[SeedTicket, ...]


def refund_request(body: object) -> RefundRequest:
    fields = _object(body, "body", {"order_id", "amount_cents", "reason"})
    return RefundRequest(
        order_id=_text(fields, "order_id", limit=64),
        amount_cents=_cents(fields, "amount_cents"),
        reason=_text(fields, "reason", limit=500),
    )


def ticket_request(body: object) -> TicketRequest:
    fields = _object(body, "body", {"title", "body", "priority"})
    return TicketRequest(
        title=_text(fields, "title", limit=200),
        body=_text(fields, "body", limit=5000),
        priority=_choice(fields, "priority", PRIORITIES, default="normal"),
    )


def disable_request(user: str, body: object) -> DisableRequest:
    fields = _object(body, "body", {"reason"})
    return DisableRequest(user=user, reason=_text(fields, "reason", limit=500))


def seed(body: object) -> Seed:
    fields = _object(body, "body", {"orders", "accounts", "tickets"})
    orders = tuple(_seed_order(item, f"orders[{i}]") for i, item in enumerate(_list(fields, "orders")))
    accounts = tuple(_seed_account(item, f"accounts[{i}]") for i, item in enumerate(_list(fields, "accounts")))
    tickets = tuple(_seed_ticket(item, f"tickets[{i}]") for i, item in enumerate(_list(fields, "tickets")))
    _unique([order.order_id for order in orders], "orders", "order_id")
    _unique([account.user for account in accounts], "accounts", "user")
    return Seed(orders=orders, accounts=accounts, tickets=tickets)


def fork_request(body: object) -> ForkRequest:
    fields = _object(body, "body", {"parent", "keys"})
    keys = _list(fields, "keys")
    for index, key in enumerate(keys):
        if not isinstance(key, str) or not key.strip() or len(key) > MAX_KEY_LENGTH:
            raise BadRequest(f"keys[{index}] must be an idempotency key: a string of 1 to {MAX_KEY_LENGTH} characters")
    _unique([str(key) for key in keys], "keys", "key")
    return ForkRequest(parent=_text(fields, "parent", limit=128), keys=tuple(str(key) for key in keys))


def _seed_order(item: object, where: str) -> SeedOrder:
    fields = _object(item, where, {"order_id", "customer", "amount_cents"})
    return SeedOrder(
        order_id=_text(fields, "order_id", limit=64, where=where),
        customer=_text(fields, "customer", limit=64, where=where),
        amount_cents=_cents(fields, "amount_cents", where=where),
    )


def _seed_account(item: object, where: str) -> SeedAccount:
    fields = _object(item, where, {"user", "email", "status"})
    return SeedAccount(
        user=_text(fields, "user", limit=64, where=where),
        email=_text(fields, "email", limit=200, where=where, default=""),
        status=_choice(fields, "status", ACCOUNT_STATUSES, default="active", where=where),
    )


def _seed_ticket(item: object, where: str) -> SeedTicket:
    fields = _object(item, where, {"title", "body", "priority", "status"})
    return SeedTicket(
        title=_text(fields, "title", limit=200, where=where),
        body=_text(fields, "body", limit=5000, where=where, default=""),
        priority=_choice(fields, "priority", PRIORITIES, default="normal", where=where),
        status=_choice(fields, "status", ("open", "closed"), default="open", where=where),
    )


def _object(value: object, where: str, allowed: set[str]) -> dict[str, object]:
    if not isinstance(value, dict):
        raise BadRequest(f"{where} must be a JSON object")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise BadRequest(f"{where}: unexpected field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}")
    return value


def _list(fields: dict[str, object], name: str) -> list[object]:
    value = fields.get(name, [])
    if not isinstance(value, list):
        raise BadRequest(f"{name} must be a list")
    return value


def _text(fields: dict[str, object], name: str, *, limit: int, where: str = "body", default: str | None = None) -> str:
    value = fields.get(name, default)
    if value is None:
        raise BadRequest(f"{where}.{name} is required")
    if not isinstance(value, str):
        raise BadRequest(f"{where}.{name} must be a string")
    if default is None and not value.strip():
        raise BadRequest(f"{where}.{name} must not be empty")
    if len(value) > limit:
        raise BadRequest(f"{where}.{name} is longer than {limit} characters")
    return value


def _cents(fields: dict[str, object], name: str, *, where: str = "body") -> int:
    value = fields.get(name)
    if value is None:
        raise BadRequest(f"{where}.{name} is required")
    # bool is an int in Python, never an amount.
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadRequest(f"{where}.{name} must be an integer number of cents")
    if not 0 < value <= _MAX_CENTS:
        raise BadRequest(f"{where}.{name} must be between 1 and {_MAX_CENTS}")
    return value


def _choice(
    fields: dict[str, object], name: str, choices: tuple[str, ...], *, default: str, where: str = "body"
) -> str:
    value = fields.get(name, default)
    if value not in choices:
        raise BadRequest(f"{where}.{name} must be one of {', '.join(choices)}")
    return str(value)


def _unique(values: list[str], where: str, name: str) -> None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            raise BadRequest(f"{where}: duplicate {name} {value!r}")
        seen.add(value)
