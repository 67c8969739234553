"""The `verify_proposal` activity: a local one, since verification is short work on the worker
that runs the workflow. Path resolution touches the file system (symlinks), hence an activity,
not workflow code. Whether /tmp is the command's own comes from this worker's sandbox, the one
its commands run in (workers of one deployment share their sandbox configuration), so the
workflow carries nothing for it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from temporalio import activity

from activities.boundary import activity_boundary
from agent.dependencies import Dependencies
from agent.sandbox.private_tmp import selected_private_tmp
from agent.verification import verify
from contracts import Verdict
from contracts.envelopes import VerifyProposalInput


class VerificationActivities:
    def __init__(self, deps: Dependencies) -> None:
        self.deps = deps

    @activity.defn(name="verify_proposal")
    async def verify_proposal(self, request: VerifyProposalInput) -> Verdict:
        async with activity_boundary(self.deps.attempts, heartbeat=False):
            private_tmp = await selected_private_tmp(self.deps)
            # In a thread: fingerprinting the workspace reads its files.
            return await asyncio.to_thread(
                verify,
                Path(request.workspace),
                request.proposal,
                request.profile,
                request.executed,
                request.effects,
                private_tmp=private_tmp,
                offered=request.tools,
            )
