"""Risk profiles: how much a run may do without a person's approval."""

from __future__ import annotations

from enum import StrEnum

from contracts.actions import RiskLevel

_ORDER = [RiskLevel.READ, RiskLevel.WRITE, RiskLevel.EXECUTE, RiskLevel.EXTERNAL_EFFECT]


class PolicyProfile(StrEnum):
    READ_ONLY = "read-only"
    WORKSPACE_WRITE = "workspace-write"
    # The default for coding tasks: read, write and run commands in the sandbox.
    DEVELOPER = "developer"
    # Also acts on systems outside the workspace (payments, tickets, accounts).
    OPERATOR = "operator"

    @property
    def ceiling(self) -> RiskLevel:
        return {
            PolicyProfile.READ_ONLY: RiskLevel.READ,
            PolicyProfile.WORKSPACE_WRITE: RiskLevel.WRITE,
            PolicyProfile.DEVELOPER: RiskLevel.EXECUTE,
            PolicyProfile.OPERATOR: RiskLevel.EXTERNAL_EFFECT,
        }[self]

    @property
    def may_approve_planted(self) -> bool:
        """Whether a file that runs code later (a hook, `.envrc`) may be written with a person's
        approval; the stricter profiles refuse it outright."""
        return self in (PolicyProfile.DEVELOPER, PolicyProfile.OPERATOR)

    def permits(self, risk: RiskLevel) -> bool:
        return _ORDER.index(risk) <= _ORDER.index(self.ceiling)
