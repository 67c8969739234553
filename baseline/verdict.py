"""What the baseline asks before a call runs: with a verifier (`baseline+verifier`), its verdict,
the durable runtime's, repeated-action check included; without, only whether a person must
allow the call, by the same rule (agent.approval_need)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agent.dependencies import Dependencies
from agent.sandbox.private_tmp import selected_private_tmp
from agent.verification import approval_needed, verify
from contracts import ActionProposal, EarlierEffect, ExecutedCall, RunRequest, Verdict


async def verdict_before(
    deps: Dependencies,
    request: RunRequest,
    workspace: Path,
    proposal: ActionProposal,
    executed: list[ExecutedCall],
    earlier: list[EarlierEffect],
) -> Verdict | None:
    """The verifier's verdict, or without one the `needs_approval` verdict (None: nobody need
    allow it). Blocking checks run in a thread: a command is parsed, paths resolved."""
    tmp = await selected_private_tmp(deps)  # /tmp is the command's own in this sandbox
    if request.baseline_verifies:
        arguments = (workspace, proposal, request.profile, executed, earlier)
        return await asyncio.to_thread(verify, *arguments, private_tmp=tmp, offered=request.tools)
    needed = (workspace, proposal, request.profile, earlier)
    return await asyncio.to_thread(approval_needed, *needed, private_tmp=tmp, offered=request.tools)
