"""Sandboxes for commands: bubblewrap, Docker, or (labelled unsandboxed) a plain process."""

from agent.sandbox.base import CommandOutcome, Limits, Sandbox, Usage
from agent.sandbox.selection import BACKENDS, current_sandbox, report_for, sandbox_report, select_sandbox
from contracts.errors import SandboxUnavailable

__all__ = [
    "BACKENDS",
    "CommandOutcome",
    "Limits",
    "Sandbox",
    "SandboxUnavailable",
    "Usage",
    "current_sandbox",
    "report_for",
    "sandbox_report",
    "select_sandbox",
]
