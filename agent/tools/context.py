"""What a tool gets besides its arguments: where it works and on whose behalf."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.artifacts import ArtifactStore
from agent.sandbox.base import Sandbox


@dataclass(frozen=True)
class ToolContext:
    workspace: Path
    run_id: str
    # The run's world: its tenant in external services (a restarted baseline keeps it).
    world_id: str
    step: int
    # sha256(run id, step, tool, canonical arguments): the same call, retried, has the same key.
    idempotency_key: str
    # Where commands run; only tools that run commands get one.
    sandbox: Sandbox | None
    # Where output too long for a result is kept.
    artifacts: ArtifactStore
    # Base URL of the operations service the side-effecting tools call (None: not configured).
    ops_url: str | None = None
    # What is left of the run's host-disk budget: a command's disk quota and stored output are
    # cut to it (agent.sandbox.base.Limits.within). None: no run budget applies.
    disk_left_bytes: int | None = None
