"""A run's world in the operations service (ops_service): its tenant, named by the
world id, seeded from the task's fixture before the agent starts and read whole when its
postconditions are judged.

    seed_world    WorkspaceError    no service configured, a bad URL, a seed file or seed the service refuses
                  ToolUnavailable   the service did not answer (retryable: seeding is idempotent)
    fork_world    WorkspaceError    no service configured, a parent never seeded, an effect it does not hold
                  ToolUnavailable   the service did not answer (retryable: forking is idempotent)
    world_state   ToolError         no service configured, a refused request, an unreadable answer
                  ToolUnavailable   the service did not answer
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from agent.ops_client import error_message, ops_request
from contracts.errors import ToolError, ToolUnavailable, WorkspaceError

# A fixture holding this file needs the service. It stays out of the agent's workspace: the
# agent learns about the world through the service and the task's README, as a person would.
SEED_FILE = "ops_seed.json"


def seed_file(fixture: Path) -> Path | None:
    path = fixture / SEED_FILE
    return path if path.is_file() else None


def require_ops_url(url: str | None) -> str:
    """The service's URL (agent.dependencies.Dependencies.ops_url), which a task on it needs."""
    if url is None:
        raise WorkspaceError("this task needs the operations service: set AGENT_LAB_OPS_URL")
    return url


async def seed_world(url: str | None, seed: Path, world_id: str) -> None:
    """Seed the world's tenant. The service seeds a tenant once and answers every later seed
    with "already seeded", changing nothing: a retry or a rerun of the world is safe."""
    url = require_ops_url(url)
    try:
        data = json.loads(await asyncio.to_thread(seed.read_bytes))
    except (OSError, ValueError) as error:
        raise WorkspaceError(f"{seed}: cannot read the seed: {error}") from None
    try:
        response = await ops_request(url, "POST", "/seed", world_id=world_id, body=data)
    except ToolError as error:
        raise WorkspaceError(str(error)) from None
    if response.is_server_error:
        raise ToolUnavailable(f"the operations service could not seed tenant {world_id!r}: {error_message(response)}")
    if not response.is_success:
        raise WorkspaceError(f"the operations service refused the seed in {seed}: {error_message(response)}")


async def fork_world(url: str | None, parent_world_id: str, world_id: str, effect_keys: list[str]) -> None:
    """Make the world a forked run starts in: its parent's world as it was when only the
    effects made under `effect_keys` had happened (the service's `POST /fork`, which copies
    them and makes nothing anew). A parent's world that lacks one of them is not the world the
    parent's record describes, and the fork is refused rather than started in another."""
    url = require_ops_url(url)
    body = {"parent": parent_world_id, "keys": effect_keys}
    try:
        response = await ops_request(url, "POST", "/fork", world_id=world_id, body=body)
    except ToolError as error:
        raise WorkspaceError(str(error)) from None
    if response.is_server_error:
        raise ToolUnavailable(
            f"the operations service could not fork tenant {parent_world_id!r}: {error_message(response)}"
        )
    if not response.is_success:
        raise WorkspaceError(
            f"the operations service refused to fork tenant {parent_world_id!r}: {error_message(response)}"
        )
    try:
        answer = response.json()
    except ValueError:
        raise WorkspaceError("the operations service answered a fork with something other than JSON") from None
    missing = answer.get("missing") if isinstance(answer, dict) else None
    if missing:
        raise WorkspaceError(
            f"tenant {parent_world_id!r} holds no effect made under {', '.join(map(repr, missing))}, "
            "which its run's ledger records: it is not the world the run acted on"
        )


async def world_state(url: str | None, world_id: str) -> dict[str, Any]:
    """The tenant's whole state: orders, refunds, tickets, accounts (see `GET /state`)."""
    if url is None:
        raise ToolError("no operations service is configured (set AGENT_LAB_OPS_URL)")
    response = await ops_request(url, "GET", "/state", world_id=world_id)
    if response.is_server_error:
        raise ToolUnavailable(f"the operations service failed ({response.status_code}): {error_message(response)}")
    if not response.is_success:
        raise ToolError(f"the operations service refused ({response.status_code}): {error_message(response)}")
    try:
        state = response.json()
    except ValueError:
        raise ToolError("the operations service answered with something other than JSON") from None
    if not isinstance(state, dict):
        raise ToolError("the operations service answered with something other than a JSON object")
    return state
