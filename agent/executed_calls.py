"""What a run remembers of a call that ran, for the repeated-action check (agent.verification).
Pure: both runtimes call it, the durable one in workflow code, so it reads only the call, its
verdict and its result, and the tool facts of `contracts.tools`."""

from __future__ import annotations

from agent.feedback import gist
from contracts import ActionProposal, ExecutedCall, RiskLevel, ToolResult, Verdict
from contracts.approval import proposal_digest
from contracts.tools import facts_of


def executed_call(step: int, proposal: ActionProposal, verdict: Verdict, result: ToolResult) -> ExecutedCall | None:
    """What to remember of a call that ran on fingerprinted files: a success, or a file tool's
    failure (an edit refused, a text not found), which the same files give again. A command's
    or an effect's failure, a timeout or an injected fault is not remembered: run again, it may
    succeed."""
    if not verdict.fingerprint:
        return None
    if result.ok:
        said = result.summary()
        if result.output.strip():
            said += f" ({gist(result.output, limit=160, joiner=' / ')})"
    elif _same_again(proposal, result):
        said = f"{result.tool}: error: {gist(result.error or 'failed', limit=200, joiner=' / ')}"
    else:
        return None
    return ExecutedCall(step=step, digest=proposal_digest(proposal), fingerprint=verdict.fingerprint, result=said)


def _same_again(proposal: ActionProposal, result: ToolResult) -> bool:
    """Whether a failed call would fail the same way on the same files: a file tool's would
    (it reads nothing else); a command's, an effect's or a faulted one's may not."""
    facts = facts_of(proposal.tool)
    return (
        facts is not None
        and facts.risk in (RiskLevel.READ, RiskLevel.WRITE)
        and not result.timed_out
        and not result.fault_injected
    )
