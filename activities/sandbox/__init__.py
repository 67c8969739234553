"""Sandboxes for commands: bubblewrap, Docker, or (labelled unsandboxed) a plain process."""

from activities.sandbox.base import CommandOutcome, Limits, Sandbox, SandboxUnavailable
from activities.sandbox.selection import BACKENDS, sandbox_report, select_sandbox

__all__ = ["BACKENDS", "CommandOutcome", "Limits", "Sandbox", "SandboxUnavailable", "sandbox_report", "select_sandbox"]
