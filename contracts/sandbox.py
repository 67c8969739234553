"""Which sandbox a worker runs the agent's commands in, as a run reports it."""

from __future__ import annotations

from pydantic import BaseModel


class SandboxReport(BaseModel):
    backend: str
    sandboxed: bool
    # Why no real sandbox was taken (empty when `sandboxed`): what a person fixes to get one.
    reason: str = ""

    def describe(self) -> str:
        """One line for the terminal and the report."""
        if self.sandboxed:
            return f"commands run in {self.backend} (sandboxed: no network, only the workspace writable)"
        return f"commands run UNSANDBOXED ({self.backend} backend): {self.reason or 'chosen by AGENT_LAB_SANDBOX'}"
