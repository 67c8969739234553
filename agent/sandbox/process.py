"""The last resort: a plain process with rlimits and a clean environment. Not a sandbox, and
every result it produces says so (`sandboxed=False`)."""

from __future__ import annotations

from pathlib import Path

from agent.artifacts import ArtifactStore
from agent.sandbox.base import CommandOutcome, Limits
from agent.sandbox.environment import command_environment
from agent.sandbox.runner import Spawn, run_process


class ProcessSandbox:
    name = "process"
    sandboxed = False
    private_tmp = False  # the host's /tmp

    def __init__(self, artifacts: ArtifactStore, limits: Limits | None = None) -> None:
        self._artifacts = artifacts
        # Its processes are bounded by a control group where there is one; never by
        # RLIMIT_NPROC, which on the worker's own user would count (and starve) every other
        # process that user runs.
        self._limits = limits or Limits()

    async def run(
        self, command: str, workspace: Path, timeout_s: float, disk_left_bytes: int | None = None
    ) -> CommandOutcome:
        spawn = Spawn(
            argv=["/bin/sh", "-c", command],
            cwd=workspace,
            env=command_environment(home=str(workspace)),
            limits=self._limits.within(disk_left_bytes),
            backend=self.name,
            sandboxed=self.sandboxed,
        )
        return await run_process(spawn, timeout_s, self._artifacts)
