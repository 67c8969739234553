"""The verifier: a proposal crosses this boundary before anything happens.

In order: is it a tool call, of a known tool, with arguments that fit the tool's schema, with
paths spelled plainly that stay in the workspace, arguments that say what the schema cannot (a
search regex that ends, a write to a file not named like an option, no secret sent out), and
(for commands) a command that, parsed for real, neither destroys, escapes, reaches the network,
reads secrets nor exhausts the machine?
Then: does this call need a person's approval, because it plants a file that runs code later
(a hook, `.envrc`: refused outright under the stricter profiles), by the tool's own rule, or
because its risk is above the run's profile?
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ValidationError

from agent.approval_need import approval_need
from agent.executed_calls import executed_call
from agent.fingerprint import workspace_fingerprint
from agent.policy import check_command, runs_later
from agent.policy.findings import Finding
from agent.policy.path_spelling import spelling_message, suspicious_spelling
from agent.policy.tool_arguments import regex_finding, sent_secret_finding, written_path_finding
from agent.tools.paths import resolve_in_workspace
from agent.tools.registry import TOOLS, Tool
from agent.tools.search import SearchArgs
from agent.tools.shell import RunCommandArgs
from contracts import ActionProposal, ExecutedCall, ReasonCode, Verdict
from contracts.approval import proposal_digest
from contracts.effects import EarlierEffect
from contracts.errors import InvalidPath, PathOutsideWorkspace, WalkTooLong
from contracts.policy import PolicyProfile
from contracts.tools import not_offered


def verify(
    workspace: Path,
    proposal: ActionProposal,
    profile: PolicyProfile = PolicyProfile.DEVELOPER,
    executed: Sequence[ExecutedCall] | None = None,
    effects: Sequence[EarlierEffect] = (),
    *,
    private_tmp: bool = False,
    offered: Sequence[str] | None = None,
) -> Verdict:
    """`executed`: the run's earlier calls worth remembering (executed_call). Given (a runtime's verifier), the
    workspace is fingerprinted (blocking: it reads the files) and a call that already ran on
    the same files is refused; None (a policy check alone) skips both. `effects`: the run's
    earlier effects the tool's approval rule adds to this call (agent.earlier_effects.for_rule).
    `private_tmp`: whether the sandbox that runs commands gives them a /tmp of their own
    (`Sandbox.private_tmp`), where a command may then work as in the workspace. `offered`: the
    tools the run's task offers (RunRequest.tools; None: every tool); any other is refused first,
    whatever its arguments: for this run it does not exist."""
    if proposal.kind != "tool_call":
        return _reject(ReasonCode.NOT_A_TOOL_CALL, f"a {proposal.kind} proposal runs no tool")
    tool = TOOLS.get(proposal.tool or "")
    if tool is None:
        known = ", ".join(sorted(TOOLS) if offered is None else offered)
        return _reject(ReasonCode.UNKNOWN_TOOL, f"unknown tool {proposal.tool!r}; tools: {known}")
    if (absent := not_offered(tool.name, offered)) is not None:
        return _reject(ReasonCode.TOOL_NOT_OFFERED, absent)
    try:
        arguments = tool.arguments.model_validate(proposal.arguments)
    except ValidationError as error:
        return _reject(ReasonCode.INVALID_ARGUMENTS, describe_validation_error(error))
    for field in tool.path_fields:
        if (why := suspicious_spelling(getattr(arguments, field))) is not None:
            return _reject(ReasonCode.SUSPICIOUS_PATH, spelling_message(getattr(arguments, field), why))
        try:
            resolve_in_workspace(workspace, getattr(arguments, field))
        except PathOutsideWorkspace as error:
            return _reject(ReasonCode.PATH_OUTSIDE_WORKSPACE, str(error))
        except InvalidPath as error:
            return _reject(ReasonCode.INVALID_ARGUMENTS, str(error))
    if (objection := _argument_finding(tool, arguments, workspace)) is not None:
        return _reject(objection.code, objection.message)
    finding: Finding | None = None
    if isinstance(arguments, RunCommandArgs):
        finding = check_command(arguments.command, workspace, private_tmp=private_tmp)
    elif tool.writes is not None:
        path, content = (getattr(arguments, field) for field in tool.writes)
        if (rule := runs_later.planted(path, content)) is not None:
            finding = Finding(runs_later.REASON, runs_later.message(rule, path))
    if finding is not None and not (finding.code == runs_later.REASON and profile.may_approve_planted):
        return _reject(finding.code, finding.message)
    fingerprint = ""
    if executed is not None:
        try:
            fingerprint = workspace_fingerprint(workspace)
        except WalkTooLong as error:  # a bounded walk, never a hang: said, and the call refused
            return _reject(ReasonCode.RESOURCE_EXHAUSTION, f"{error}; no call can be checked in it: finish the run")
        if (earlier := _same_call(executed, proposal_digest(proposal), fingerprint)) is not None:
            return _reject(
                ReasonCode.REPEATED_ACTION,
                f"the same call ran at step {earlier.step} on the same files and returned: {earlier.result}. "
                "Running it again would tell you nothing new: change something first, or do something else",
            )
    if (need := approval_need(tool, arguments, profile, effects, finding)) is not None:
        return need.model_copy(update={"fingerprint": fingerprint})
    return Verdict(decision="allow", reason_code=ReasonCode.ALLOWED, fingerprint=fingerprint)


def approval_needed(
    workspace: Path,
    proposal: ActionProposal,
    profile: PolicyProfile,
    effects: Sequence[EarlierEffect] = (),
    *,
    private_tmp: bool = False,
    offered: Sequence[str] | None = None,
) -> Verdict | None:
    """The `needs_approval` verdict the verifier would give this call (agent.approval_need), or
    None: for a call that ran with no verifier before it (the naive baseline) and for the
    experiment's measure, which asks it of every arm's steps. A call the verifier refuses
    outright needs no approval: it is an unsafe action, counted as one. Blocking: a command is
    parsed and paths resolved against the workspace, as verify does."""
    verdict = verify(workspace, proposal, profile, None, effects, private_tmp=private_tmp, offered=offered)
    return verdict if verdict.decision == "needs_approval" else None


def _same_call(executed: Sequence[ExecutedCall], digest: str, fingerprint: str) -> ExecutedCall | None:
    for earlier in reversed(executed):
        if earlier.digest == digest and earlier.fingerprint == fingerprint:
            return earlier
    return None


def _argument_finding(tool: Tool, arguments: BaseModel, workspace: Path) -> Finding | None:
    """What an argument's schema cannot say (agent.policy.tool_arguments): a search regex that
    backtracks without end, a write to a directory or to a name read as an option, a secret in
    the text a call sends out."""
    if isinstance(arguments, SearchArgs) and arguments.regex:
        return regex_finding(arguments.pattern)
    if tool.writes is not None:
        path = getattr(arguments, tool.writes[0])
        return written_path_finding(tool.name, path, resolve_in_workspace(workspace, path), workspace.resolve())
    if tool.external_effects:
        return sent_secret_finding(tool.name, arguments.model_dump())
    return None


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem, naming the field, as a model (or a person) needs it."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return "invalid arguments: " + "; ".join(problems)


def _reject(code: ReasonCode, message: str) -> Verdict:
    return Verdict(decision="reject", reason_code=code, message=message)


# `executed_call` moved to agent.executed_calls (pure, for workflow code); still importable here.
__all__ = ["approval_needed", "describe_validation_error", "executed_call", "verify"]
