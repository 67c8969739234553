"""Tools that act on the operations service (experiments/ops_service): refunds, tickets,
account disables. Each call sends the executor's idempotency key, so the service itself
refuses a second effect for a retried call, and each has a probe that asks the service
whether a call's effect already happened (the executor's recovery after a crash).

    connection error, timeout, 5xx   ToolUnavailable: retried under the same key
    4xx                              ToolError with the service's message: the model reads it

A probe raises only ToolUnavailable: when it cannot tell, the call is retried, never guessed.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ConfigDict, Field, JsonValue

from agent.ops_client import error_message, ops_request
from agent.tools.context import ToolContext
from contracts.errors import ToolError, ToolUnavailable

# Refunds above this need a person's approval (the verifier asks for it).
REFUND_APPROVAL_LIMIT_CENTS = 10_000
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


def refund_approval(args: IssueRefundArgs) -> str | None:
    if args.amount_cents > REFUND_APPROVAL_LIMIT_CENTS:
        return (
            f"a refund of {args.amount_cents} cents is above the {REFUND_APPROVAL_LIMIT_CENTS} cents"
            " that may be refunded without approval"
        )
    return None


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
