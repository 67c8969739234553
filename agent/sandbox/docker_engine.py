"""Docker, through the docker SDK, where an engine answers: no network, a read-only root file
system, the workspace bind-mounted, cpu, memory and process limits, no capabilities."""

from __future__ import annotations

import asyncio
import os
import socket
import time
from functools import cache
from pathlib import Path
from typing import Any

from agent.artifacts import ArtifactStore
from agent.sandbox.base import CommandOutcome, Limits
from agent.sandbox.environment import command_environment
from agent.sandbox.identity import command_user
from agent.sandbox.runner import HEAD_BYTES, TAIL_BYTES, shown_text
from contracts.errors import SandboxUnavailable

DEFAULT_IMAGE = "python:3.11-slim"
SANDBOX_WORKSPACE = "/workspace"


class DockerSandbox:
    name = "docker"
    sandboxed = True
    private_tmp = True  # a tmpfs on /tmp; /dev/shm is the container's own

    def __init__(self, artifacts: ArtifactStore, limits: Limits | None = None, image: str | None = None) -> None:
        self._client = _client()
        self._artifacts = artifacts
        self._limits = limits or Limits()
        self._image = image or DEFAULT_IMAGE

    async def run(
        self, command: str, workspace: Path, timeout_s: float, disk_left_bytes: int | None = None
    ) -> CommandOutcome:
        # Not bounded here: this backend has no disk quota of its own (nor a per-command one), and
        # stores output as the engine returns it. The run's budget still ends the run.
        del disk_left_bytes
        # The SDK is synchronous: it runs in a thread, never on the event loop.
        return await asyncio.to_thread(self._run, command, workspace, timeout_s)

    def _run(self, command: str, workspace: Path, timeout_s: float) -> CommandOutcome:
        started = time.perf_counter()
        uid, gid = command_user(workspace)
        environment = command_environment(home=SANDBOX_WORKSPACE)
        environment["PATH"] = "/usr/local/bin:/usr/bin:/bin"  # the image's Python, not the host's
        container: Any = self._client.containers.run(
            self._image,
            ["/bin/sh", "-c", command],
            detach=True,
            network_mode="none",
            read_only=True,
            volumes={str(workspace.resolve()): {"bind": SANDBOX_WORKSPACE, "mode": "rw"}},
            working_dir=SANDBOX_WORKSPACE,
            tmpfs={"/tmp": "rw,size=256m"},
            environment=environment,
            user=f"{uid}:{gid}",
            mem_limit=self._limits.memory_bytes,
            nano_cpus=1_000_000_000,
            pids_limit=self._limits.processes or 256,
            cap_drop=["ALL"],
            security_opt=["no-new-privileges"],
        )
        timed_out = False
        try:
            try:
                exit_code: int | None = container.wait(timeout=timeout_s)["StatusCode"]
            except Exception:  # the SDK raises requests' ReadTimeout on a timeout
                timed_out, exit_code = True, None
                container.kill()
            data = container.logs(stdout=True, stderr=True)
        finally:
            container.remove(force=True)
        artifact = None
        text = data.decode("utf-8", errors="replace")
        if len(data) > HEAD_BYTES + TAIL_BYTES:
            artifact = self._artifacts.put_bytes(data)
            text = shown_text(data[:HEAD_BYTES], data[-TAIL_BYTES:], len(data))
        return CommandOutcome(
            exit_code=exit_code,
            output=text,
            truncated=artifact is not None,
            timed_out=timed_out,
            duration_ms=(time.perf_counter() - started) * 1000,
            backend=self.name,
            sandboxed=True,
            artifact=artifact,
        )


def engine_answers() -> bool:
    try:
        _client()
    except SandboxUnavailable:
        return False
    return True


@cache
def _client() -> Any:
    try:
        import docker
    except ImportError:
        raise SandboxUnavailable("the docker SDK is not installed") from None
    # Checked by hand first: the SDK leaks its socket when the engine does not answer.
    unreachable = _unreachable(os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock"))
    if unreachable:
        raise SandboxUnavailable(f"no Docker engine answers: {unreachable}")
    try:
        client = docker.from_env(timeout=5)
    except Exception as error:  # the SDK wraps configuration and connection failures in several types
        raise SandboxUnavailable(f"no Docker engine answers: {type(error).__name__}") from None
    try:
        client.ping()
    except Exception as error:
        client.close()
        raise SandboxUnavailable(f"no Docker engine answers: {type(error).__name__}: {error}") from None
    return client


def _unreachable(host: str) -> str | None:
    """Why nothing answers at DOCKER_HOST, or None when something accepts a connection."""
    if host.startswith("unix://"):
        family, address = socket.AF_UNIX, host.removeprefix("unix://")
    elif host.startswith("tcp://"):
        name, _, port = host.removeprefix("tcp://").rpartition(":")
        family, address = socket.AF_INET, (name, int(port or 2375))  # type: ignore[assignment]
    else:
        return None  # ssh:// and others: let the SDK try
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.settimeout(2)
        try:
            probe.connect(address)
        except OSError as error:
            return f"{host}: {error.strerror or error}"
    return None
