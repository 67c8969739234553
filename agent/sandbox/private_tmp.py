"""Whether the sandbox this worker runs commands in gives each command a private /tmp, as the
verifier needs to know (agent.verification.verify's `private_tmp`)."""

from __future__ import annotations

from agent.dependencies import Dependencies
from agent.sandbox.selection import current_sandbox
from contracts.errors import SandboxUnavailable


async def selected_private_tmp(deps: Dependencies) -> bool:
    """From the sandbox selected for this worker (the one agent.execution runs commands in).
    False when none can be selected: then no command runs either, and the safe answer is that
    /tmp is the host's."""
    try:
        return (await current_sandbox(deps)).private_tmp
    except SandboxUnavailable:
        return False
