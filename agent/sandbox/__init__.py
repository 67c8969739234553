"""Sandboxes for commands: bubblewrap, Docker, or (labelled unsandboxed) a plain process."""

from agent.sandbox.base import CommandOutcome, Limits, Sandbox, SandboxUnavailable
from agent.sandbox.selection import BACKENDS, sandbox_report, select_sandbox

__all__ = ["BACKENDS", "CommandOutcome", "Limits", "Sandbox", "SandboxUnavailable", "sandbox_report", "select_sandbox"]
