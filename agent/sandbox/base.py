"""What every sandbox backend offers: run one shell command in a workspace, bounded. A
backend that cannot run here raises SandboxUnavailable, saying why."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from contracts import ArtifactRef, ResourceLimit

MiB = 1024**2


@dataclass(frozen=True)
class Limits:
    """Resource limits for one command and everything it starts (agent.sandbox.containment
    says which mechanism enforces each, and what happens where it is missing).

    The defaults leave room for a real test suite and keep a runaway from hurting the host."""

    # CPU time of the whole command (all its processes), and the share of the machine's
    # cores it may use at once: below all of them, so the host keeps one for itself.
    cpu_seconds: int = 600
    cpu_cores: float = 1.0
    # Memory of the whole command (page cache and its /tmp, a tmpfs, included).
    memory_bytes: int = 2048 * MiB
    # Processes and threads at once, of the whole command.
    processes: int | None = 512
    # What the workspace may grow by during one command (bytes allocated, and files).
    disk_bytes: int = 512 * MiB
    disk_files: int = 100_000
    # The sandbox's private /tmp (a tmpfs, in memory).
    tmp_bytes: int = 256 * MiB
    # Any one file (RLIMIT_FSIZE); never above disk_bytes.
    file_bytes: int = 512 * MiB
    open_files: int = 1024
    # Output read from the command before it is stopped, and what of it is stored as an artifact.
    output_bytes: int = 1024 * MiB
    artifact_bytes: int = 64 * MiB
    # Added to the command's niceness: the host's own work goes first.
    niceness: int = 10

    def within(self, disk_left_bytes: int | None) -> Limits:
        """These limits for a command of a run with `disk_left_bytes` of its host-disk budget
        left (None: no run budget): the workspace may grow, and the output be stored, by no
        more than that, however large the per-command quota."""
        if disk_left_bytes is None:
            return self
        left = max(disk_left_bytes, 0)
        return replace(self, disk_bytes=min(self.disk_bytes, left), artifact_bytes=min(self.artifact_bytes, left))


@dataclass(frozen=True)
class Usage:
    """What a command was measured to use; None where this host cannot measure it."""

    memory_peak_bytes: int | None = None
    processes_peak: int | None = None
    cpu_seconds: float | None = None
    disk_bytes: int | None = None
    disk_files: int | None = None
    output_bytes: int = 0


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
    # The limit that stopped the command, and in words what was measured against it.
    limit: ResourceLimit | None = None
    limit_message: str = ""
    usage: Usage = field(default_factory=Usage)
    # The limits this host enforced on it (the others were not available here).
    enforced: frozenset[ResourceLimit] = frozenset()


class Sandbox(Protocol):
    name: str
    # False only for the last-resort plain process; results say so.
    sandboxed: bool
    # Whether each command gets a /tmp (and /dev/shm) of its own, gone when it ends: the
    # verifier then lets commands work there (agent.policy.paths).
    private_tmp: bool

    async def run(
        self, command: str, workspace: Path, timeout_s: float, disk_left_bytes: int | None = None
    ) -> CommandOutcome:
        """`disk_left_bytes`: what is left of the run's host-disk budget (Limits.within)."""
        ...
