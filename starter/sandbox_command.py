"""`python -m starter sandbox exec -- CMD ...`: one command in the sandbox, as an agent's
run_command tool runs it; prints the backend, the exit code and the output."""

from __future__ import annotations

import asyncio
import os
import shlex
from pathlib import Path

from agent.dependencies_from_environment import from_environment
from agent.sandbox import SandboxUnavailable, select_sandbox
from agent.sandbox.identity import NOBODY
from contracts.errors import StarterError

EXIT_TIMED_OUT = 124


async def sandbox_exec(backend: str, workspace: Path, command: list[str], timeout_s: float) -> int:
    if not command:
        raise StarterError("no command given: python -m starter sandbox exec --workspace DIR -- CMD ...")
    if not workspace.is_dir():
        raise StarterError(f"workspace {workspace} is not a directory")
    try:
        deps = from_environment()
        sandbox = await asyncio.to_thread(select_sandbox, backend or deps.sandbox, deps.artifacts, deps.docker_image)
    except SandboxUnavailable as error:
        raise StarterError(f"sandbox backend {backend!r}: {error}") from None
    # A single argument is a shell command line; several are an argv, quoted as such.
    line = command[0] if len(command) == 1 else shlex.join(command)
    outcome = await sandbox.run(line, workspace.resolve(), timeout_s)
    label = "sandboxed" if outcome.sandboxed else "NOT sandboxed: a plain process with limits"
    print(f"backend: {outcome.backend} ({label})")
    if sandbox.name == "bubblewrap" and os.geteuid() == 0 and workspace.stat().st_uid == 0:
        print(
            f"note: commands run as nobody (uid {NOBODY}); this workspace belongs to root, so they cannot write to it"
        )
    print(f"exit code: {'timed out' if outcome.timed_out else outcome.exit_code} ({outcome.duration_ms:.0f} ms)")
    if outcome.limit is not None:
        print(f"stopped at its {outcome.limit} limit: {outcome.limit_message}")
    print("output:")
    print(outcome.output, end="" if outcome.output.endswith("\n") else "\n")
    if outcome.artifact:
        print(f"(output cut; all {outcome.artifact.size_bytes} bytes are in {outcome.artifact.path})")
    return EXIT_TIMED_OUT if outcome.exit_code is None else outcome.exit_code
