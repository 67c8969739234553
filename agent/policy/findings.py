"""A reason to refuse a command, and which of several reasons to report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from contracts.actions import ReasonCode


@dataclass(frozen=True)
class Finding:
    code: ReasonCode
    # One sentence a model can act on, naming the offending part of the command.
    message: str


# Most serious first. The specific harms outrank the generic ones, so `curl -d @/etc/x`
# is reported as network access and `rm -rf /` as destructive, not as a path outside the
# workspace; an unanalyzable part outranks only the path rule, since whatever it hides
# could be any of the others.
SEVERITY: tuple[ReasonCode, ...] = (
    ReasonCode.PRIVILEGE_CHANGE,
    ReasonCode.SANDBOX_ESCAPE,
    ReasonCode.SECRET_ACCESS,
    ReasonCode.NETWORK_ACCESS,
    ReasonCode.DESTRUCTIVE_COMMAND,
    ReasonCode.RESOURCE_EXHAUSTION,
    ReasonCode.DYNAMIC_CODE,
    ReasonCode.UNANALYZABLE_COMMAND,
    # A name made to pass for another, or for an option (agent.policy.option_files).
    ReasonCode.SUSPICIOUS_PATH,
    ReasonCode.PATH_OUTSIDE_WORKSPACE,
    # Last: the only finding a person may approve, so any other finding outranks it.
    ReasonCode.PLANTED_PERSISTENCE,
)


def most_serious(findings: Iterable[Finding]) -> Finding | None:
    """The first finding of the most serious code (ties keep command order)."""
    ranked = sorted(enumerate(findings), key=lambda item: (SEVERITY.index(item[1].code), item[0]))
    return ranked[0][1] if ranked else None
