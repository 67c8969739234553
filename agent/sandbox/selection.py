"""Which sandbox runs commands: chosen by name, or detected (`auto`).

`auto` takes the first that works here: bubblewrap, then Docker (when an engine answers),
then a plain process, which every result labels as unsandboxed, and which a run announces at
its start with the reasons the others were passed over. The choice is the process's
(agent.dependencies.Dependencies.sandbox, from AGENT_LAB_SANDBOX in a worker).
"""

from __future__ import annotations

import asyncio
from functools import cache

from agent.artifacts import ArtifactStore
from agent.dependencies import Dependencies
from agent.sandbox import bubblewrap, docker_engine
from agent.sandbox.base import Sandbox
from agent.sandbox.process import ProcessSandbox
from contracts.errors import SandboxUnavailable
from contracts.sandbox import SandboxReport

BACKENDS = ("auto", "bubblewrap", "docker", "process")


def select_sandbox(name: str, artifacts: ArtifactStore, image: str | None = None) -> Sandbox:
    """The sandbox `name` (or `auto`'s pick), storing long output in `artifacts`; `image` is
    the Docker backend's. Blocking on first use (it probes); call it in a thread from async code."""
    return _select(name, artifacts, image)[0]


async def current_sandbox(deps: Dependencies) -> Sandbox:
    """The process's sandbox for async callers: probed once, in a thread."""
    return await asyncio.to_thread(select_sandbox, deps.sandbox, deps.artifacts, deps.docker_image)


def sandbox_report(name: str, artifacts: ArtifactStore, image: str | None = None) -> SandboxReport:
    """What `select_sandbox` gives here, and why it is not a sandbox when it is not.
    Blocking on first use, like `select_sandbox`."""
    sandbox, reason = _select(name, artifacts, image)
    return SandboxReport(backend=sandbox.name, sandboxed=sandbox.sandboxed, reason=reason)


def report_for(deps: Dependencies) -> SandboxReport:
    """`sandbox_report` of the process's sandbox. Blocking on first use."""
    return sandbox_report(deps.sandbox, deps.artifacts, deps.docker_image)


@cache
def _select(name: str, artifacts: ArtifactStore, image: str | None) -> tuple[Sandbox, str]:
    match name:
        case "auto":
            bubblewrap_said = bubblewrap.unavailable_reason()
            if bubblewrap_said is None:
                return bubblewrap.BubblewrapSandbox(artifacts), ""
            try:
                return docker_engine.DockerSandbox(artifacts, image=image), ""
            except SandboxUnavailable as docker_said:
                return ProcessSandbox(artifacts), f"{bubblewrap_said}; {docker_said}"
        case "bubblewrap":
            if reason := bubblewrap.unavailable_reason():
                raise SandboxUnavailable(reason)
            return bubblewrap.BubblewrapSandbox(artifacts), ""
        case "docker":
            return docker_engine.DockerSandbox(artifacts, image=image), ""
        case "process":
            return ProcessSandbox(artifacts), "AGENT_LAB_SANDBOX=process chose a plain process"
    raise SandboxUnavailable(f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}")
