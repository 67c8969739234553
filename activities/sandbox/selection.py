"""Which sandbox runs commands: chosen by name, or detected (`auto`).

`auto` takes the first that works here: bubblewrap, then Docker (when an engine answers),
then a plain process, which every result labels as unsandboxed. The choice comes from the
argument, else AGENT_LAB_SANDBOX, else `auto`.
"""

from __future__ import annotations

import os
from functools import cache

from activities.sandbox import bubblewrap, docker_engine
from activities.sandbox.base import Sandbox, SandboxUnavailable
from activities.sandbox.process import ProcessSandbox

BACKENDS = ("auto", "bubblewrap", "docker", "process")


def select_sandbox(name: str | None = None) -> Sandbox:
    """Blocking on first use (it probes); call it in a thread from async code."""
    return _select(name or os.environ.get("AGENT_LAB_SANDBOX") or "auto")


@cache
def _select(name: str) -> Sandbox:
    match name:
        case "auto":
            if bubblewrap.available():
                return bubblewrap.BubblewrapSandbox()
            if docker_engine.engine_answers():
                return docker_engine.DockerSandbox()
            return ProcessSandbox()
        case "bubblewrap":
            if not bubblewrap.available():
                bubblewrap.BubblewrapSandbox()  # raises with the reason when bwrap is missing
                raise SandboxUnavailable("bwrap is installed but cannot create a sandbox here")
            return bubblewrap.BubblewrapSandbox()
        case "docker":
            return docker_engine.DockerSandbox()
        case "process":
            return ProcessSandbox()
    raise SandboxUnavailable(f"unknown sandbox backend {name!r}; choose one of {', '.join(BACKENDS)}")
