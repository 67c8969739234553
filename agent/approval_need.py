"""Whether a call needs a person's approval, and why: the one rule for every runtime.

The verifier asks it of every call it lets through (agent.verification); the baseline, which by
default has no verifier, asks it before a call runs, so that it can ask a person or record the
call as an unapproved effect; the experiment's measure asks it of every step of every arm, so
that neither runtime's own account is trusted. Three reasons, in this order: the call plants a
file that runs code later (a hook, `.envrc`) under a profile where a person may allow that, the
tool's own approval rule over the run's earlier effects (a refund above a limit), or the tool's
risk above the run's profile. Pure: it reads nothing but its arguments.
"""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from agent.policy import runs_later
from agent.policy.findings import Finding
from agent.tools.registry import Tool
from contracts import ReasonCode, Verdict
from contracts.effects import EarlierEffect
from contracts.policy import PolicyProfile


def approval_need(
    tool: Tool,
    arguments: BaseModel,
    profile: PolicyProfile,
    effects: Sequence[EarlierEffect] = (),
    finding: Finding | None = None,
) -> Verdict | None:
    """The `needs_approval` verdict for this call, or None when it needs none.

    `arguments`: the call's, validated by the tool's model. `effects`: the run's earlier effects
    its approval rule reads (agent.earlier_effects.for_rule). `finding`: what the policy found
    in the call (a command's or a written file's); only a planted file, under a profile that may
    approve one, asks a person (any other finding is the verifier's to refuse)."""
    if finding is not None and finding.code == runs_later.REASON and profile.may_approve_planted:
        return _needs(finding.code, finding.message)
    if tool.approval_rule is not None and (reason := tool.approval_rule(arguments, effects)):
        return _needs(ReasonCode.APPROVAL_RULE, reason)
    if not profile.permits(tool.risk):
        message = f"{tool.name} is a {tool.risk} action, above the run's {profile} profile"
        return _needs(ReasonCode.RISK_ABOVE_PROFILE, message)
    return None


def _needs(code: ReasonCode, message: str) -> Verdict:
    return Verdict(decision="needs_approval", reason_code=code, message=message)
