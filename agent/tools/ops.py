"""Tools that act on the operations service (ops_service): refunds, tickets,
account disables. Each call sends the executor's idempotency key, so the service itself
refuses a second effect for a retried call, and each has a probe that asks the service
whether a call's effect already happened (the executor's recovery after a crash).

    connection error, timeout, 5xx   ToolUnavailable: retried under the same key
    4xx                              ToolError with the service's message: the model reads it

A probe raises only ToolUnavailable: when it cannot tell, the call is retried, never guessed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from agent.ops_client import error_message, ops_request
from agent.tools.context import ToolContext
from contracts.effects import EarlierEffect
from contracts.errors import ToolError, ToolUnavailable

# What a run may refund without a person's approval (the verifier asks for it): on one order,
# and over all orders. Each counts the run's earlier refunds with the one proposed, so twelve
# refunds of 10,000 cents need what one of 120,000 needs.
REFUND_APPROVAL_LIMIT_CENTS = 10_000
REFUND_RUN_APPROVAL_LIMIT_CENTS = 30_000
_NOT_CONFIGURED = "no operations service is configured (set AGENT_LAB_OPS_URL)"


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


class IssueRefundArgs(_Arguments):
    order_id: str = Field(min_length=1, max_length=64, description="The order to refund, e.g. 'ORD-1001'.")
    amount_cents: int = Field(gt=0, le=10**12, description="Amount to refund, in cents (positive).")
    reason: str = Field(min_length=1, max_length=500, description="Why the refund is issued, for the audit trail.")


class CreateTicketArgs(_Arguments):
    title: str = Field(min_length=1, max_length=200, description="One-line summary of the ticket.")
    body: str = Field(min_length=1, max_length=5000, description="What happened and what is needed.")
    priority: Literal["low", "normal", "high", "urgent"] = Field(default="normal", description="Ticket priority.")


class DisableAccountArgs(_Arguments):
    user: str = Field(min_length=1, max_length=64, pattern=r"^[^/]+$", description="The account's user name.")
    reason: str = Field(min_length=1, max_length=500, description="Why the account is disabled, for the audit trail.")


async def issue_refund(ctx: ToolContext, args: IssueRefundArgs) -> str:
    return await _post(ctx, "/refunds", args)


async def find_refund(ctx: ToolContext, args: IssueRefundArgs) -> str | None:
    return await _find(ctx, "/refunds/by-key")


async def create_ticket(ctx: ToolContext, args: CreateTicketArgs) -> str:
    return await _post(ctx, "/tickets", args)


async def find_ticket(ctx: ToolContext, args: CreateTicketArgs) -> str | None:
    return await _find(ctx, "/tickets/by-key")


async def disable_account(ctx: ToolContext, args: DisableAccountArgs) -> str:
    return await _post(ctx, f"/accounts/{quote(args.user, safe='')}/disable", args, exclude={"user"})


async def find_disabled_account(ctx: ToolContext, args: DisableAccountArgs) -> str | None:
    return await _find(ctx, "/accounts/disabled-by-key")


def refund_approval(args: IssueRefundArgs, earlier: Sequence[EarlierEffect]) -> str | None:
    """Why a refund needs a person's approval: with the run's earlier refunds of its order it
    passes the per-order limit, or with all the run's earlier refunds the per-run limit.

    An earlier refund a person approved counts as any other: the approval covered that refund,
    of that amount (it is bound to the call's digest), not an allowance for more. Left out, one
    approved refund of 10,001 cents would let every later refund of its order through unasked.
    """
    refunds = _earlier_refunds(earlier)
    same_order = [(step, refund) for step, refund in refunds if refund.order_id == args.order_id]
    order_total = args.amount_cents + sum(refund.amount_cents for _, refund in same_order)
    run_total = args.amount_cents + sum(refund.amount_cents for _, refund in refunds)
    unasked = "without a person's approval"
    reasons = []
    if order_total > REFUND_APPROVAL_LIMIT_CENTS and not same_order:
        reasons.append(f"is above the {REFUND_APPROVAL_LIMIT_CENTS} cents that may be refunded on one order {unasked}")
    elif order_total > REFUND_APPROVAL_LIMIT_CENTS:
        reasons.append(
            f"on order {args.order_id!r} brings this run's refunds of that order to {order_total} cents"
            f" ({_earlier(same_order)}), above the {REFUND_APPROVAL_LIMIT_CENTS} cents that may be refunded"
            f" on one order {unasked}"
        )
    # The per-run limit is above the per-order one: a refund that passes it alone passed both.
    if run_total > REFUND_RUN_APPROVAL_LIMIT_CENTS and refunds:
        reasons.append(
            f"brings this run's refunds to {run_total} cents ({_earlier(refunds)}), above the"
            f" {REFUND_RUN_APPROVAL_LIMIT_CENTS} cents that may be refunded in one run {unasked}"
        )
    return f"a refund of {args.amount_cents} cents {'; and it '.join(reasons)}" if reasons else None


def account_approval(args: DisableAccountArgs, earlier: Sequence[EarlierEffect]) -> str:
    """Every account disabled needs a person's approval: it locks a person out at once, and no
    tool can enable an account again, so a wrong user name (or one a hostile document named) is
    undone only by hand. Unlike an amount, there is no smaller part of it to allow."""
    return (
        f"disabling account {args.user!r} locks its user out at once, and no tool can enable it again:"
        " every account disabled needs a person's approval"
    )


def _earlier_refunds(earlier: Sequence[EarlierEffect]) -> list[tuple[int, IssueRefundArgs]]:
    refunds = []
    for effect in earlier:
        if effect.tool != "issue_refund":
            continue
        try:
            refunds.append((effect.step, IssueRefundArgs.model_validate(effect.arguments)))
        except ValidationError:
            continue  # arguments that fit no refund made none: the executor validates them too
    return refunds


def _earlier(refunds: list[tuple[int, IssueRefundArgs]]) -> str:
    steps = ", ".join(str(step) for step, _ in refunds)
    cents = sum(refund.amount_cents for _, refund in refunds)
    return f"{cents} cents earlier, at step{'s' if len(refunds) > 1 else ''} {steps}"


async def _post(ctx: ToolContext, path: str, args: BaseModel, exclude: set[str] | None = None) -> str:
    response = await _call(ctx, "POST", path, args.model_dump(mode="json", exclude=exclude))
    _raise_for_status(response)
    return response.text


async def _find(ctx: ToolContext, prefix: str) -> str | None:
    """The resource recorded under this call's key, or None when the service has none.

    Raises only ToolUnavailable: a probe that cannot tell must neither guess "absent" (acting
    on a guess could pay twice) nor end the call; a retry, perhaps on a worker configured
    properly, asks again.
    """
    try:
        response = await _call(ctx, "GET", f"{prefix}/{quote(ctx.idempotency_key, safe='')}")
        if response.status_code == httpx.codes.NOT_FOUND:
            return None
        _raise_for_status(response)
    except (ToolError, ToolUnavailable) as error:
        raise ToolUnavailable(f"cannot check for an earlier effect: {error}") from None
    return response.text


async def _call(ctx: ToolContext, method: str, path: str, body: JsonValue = None) -> httpx.Response:
    if ctx.ops_url is None:
        raise ToolError(_NOT_CONFIGURED)
    return await ops_request(
        ctx.ops_url, method, path, world_id=ctx.world_id, idempotency_key=ctx.idempotency_key, body=body
    )


def _raise_for_status(response: httpx.Response) -> None:
    if response.is_success:
        return
    message = error_message(response)
    if response.is_server_error:
        raise ToolUnavailable(f"operations service error {response.status_code}: {message}")
    raise ToolError(f"operations service refused the request ({response.status_code}): {message}")
