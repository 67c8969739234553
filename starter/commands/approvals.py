"""`python -m starter pending | approve WORKFLOW_ID | deny WORKFLOW_ID --reason ...`: a person
answers the proposal a run waits on."""

from __future__ import annotations

import argparse
import asyncio

from starter.arg_types import sha256_digest


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    pending = commands.add_parser("pending", help="runs waiting for a person's approval")
    pending.set_defaults(handler=_approvals)
    approve = commands.add_parser("approve", help="approve the proposal a run waits on")
    approve.add_argument("workflow_id", help="the run's workflow id, as `run` and `pending` print it")
    approve.add_argument("--approver", help="who approves (default: AGENT_LAB_APPROVER or the login name)")
    approve.add_argument(
        "--sha256", type=sha256_digest, help="the proposal's arguments digest, as `pending` shows it (checked)"
    )
    approve.add_argument("--expires-in", help="the approval lapses after this long, e.g. 30m, 2h, 3d")
    approve.set_defaults(handler=_approvals)
    deny = commands.add_parser("deny", help="deny the proposal a run waits on; the reason goes to the model")
    deny.add_argument("workflow_id", help="the run's workflow id, as `run` and `pending` print it")
    deny.add_argument("--reason", required=True, help="why: the model reads it as feedback on its proposal")
    deny.add_argument("--approver", help="who denies (default: AGENT_LAB_APPROVER or the login name)")
    deny.set_defaults(handler=_approvals)


def _approvals(args: argparse.Namespace) -> int:
    return asyncio.run(_answer(args))


async def _answer(args: argparse.Namespace) -> int:
    from starter import approvals_command as approvals
    from starter.connection import temporal_connection

    async with temporal_connection(embed=False) as connection:
        if args.command == "pending":
            return await approvals.pending(connection.client)
        if args.command == "approve":
            return await approvals.approve(
                connection.client, args.workflow_id, args.approver, args.sha256, args.expires_in
            )
        return await approvals.deny(connection.client, args.workflow_id, args.approver, args.reason)
