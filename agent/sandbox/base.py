"""What every sandbox backend offers: run one shell command in a workspace, bounded. A
backend that cannot run here raises SandboxUnavailable, saying why."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from contracts import ArtifactRef


@dataclass(frozen=True)
class Limits:
    """Resource limits for one command and everything it starts."""

    cpu_seconds: int = 600
    memory_bytes: int = 4 * 1024**3
    # Counted per user across the machine, so applied only where commands run as a user of
    # their own (bubblewrap started as root drops to the workspace's user); None: not applied.
    processes: int | None = 256
    file_bytes: int = 1024**3
    open_files: int = 1024


@dataclass(frozen=True)
class CommandOutcome:
    exit_code: int | None
    output: str
    truncated: bool
    timed_out: bool
    duration_ms: float
    backend: str
    sandboxed: bool
    # The whole output, when `output` had to be cut.
    artifact: ArtifactRef | None = None


class Sandbox(Protocol):
    name: str
    # False only for the last-resort plain process; results say so.
    sandboxed: bool

    async def run(self, command: str, workspace: Path, timeout_s: float) -> CommandOutcome: ...
