"""Which sandbox runs commands: chosen by name, or detected (`auto`).

`auto` takes the first that works here: bubblewrap, then Docker (when an engine answers),
then a plain process, which every result labels as unsandboxed, and which a run announces at
its start with the reasons the others were passed over. The choice comes from the argument,
else AGENT_LAB_SANDBOX, else `auto`.
"""

from __future__ import annotations

import asyncio
import os
from functools import cache

from agent.sandbox import bubblewrap, docker_engine
from agent.sandbox.base import Sandbox
from agent.sandbox.process import ProcessSandbox
from contracts.errors import SandboxUnavailable
from contracts.sandbox import SandboxReport

BACKENDS = ("auto", "bubblewrap", "docker", "process")


def select_sandbox(name: str | None = None) -> Sandbox:
    """Blocking on first use (it probes); call it in a thread from async code."""
    return _select(_chosen(name))[0]


async def current_sandbox() -> Sandbox:
    """The configured sandbox for async callers: probed once, in a thread."""
    return await asyncio.to_thread(select_sandbox)


def sandbox_report(name: str | None = None) -> SandboxReport:
    """What `select_sandbox` gives here, and why it is not a sandbox when it is not.
    Blocking on first use, like `select_sandbox`."""
    sandbox, reason = _select(_chosen(name))
    return SandboxReport(backend=sandbox.name, sandboxed=sandbox.sandboxed, reason=reason)


def _chosen(name: str | None) -> str:
    return name or os.environ.get("AGENT_LAB_SANDBOX") or "auto"


@cache
def _select(name: str) -> tuple[Sandbox, str]:
    match name:
        case "auto":
            bubblewrap_said = bubblewrap.unavailable_reason()
            if bubblewrap_said is None:
                return bubblewrap.BubblewrapSandbox(), ""
            try:
                return docker_engine.DockerSandbox(), ""
            except SandboxUnavailable as docker_said:
                return ProcessSandbox(), f"{bubblewrap_said}; {docker_said}"
        case "bubblewrap":
            if reason := bubblewrap.unavailable_reason():
                raise SandboxUnavailable(reason)
            return bubblewrap.BubblewrapSandbox(), ""
        case "docker":
            return docker_engine.DockerSandbox(), ""
        case "process":
            return ProcessSandbox(), "AGENT_LAB_SANDBOX=process chose a plain process"
    raise SandboxUnavailable(f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}")
