"""The verifier: a proposal crosses this boundary before anything happens.

In order: is it a tool call, of a known tool, with arguments that fit the tool's schema, with
paths that stay in the workspace, and (for commands) a command that, parsed for real, neither
destroys, escapes, reaches the network nor reads secrets? Then: does this call need a person's
approval, by the tool's own rule or because its risk is above the run's profile?
"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError

from agent.policy import check_command
from agent.tools.paths import resolve_in_workspace
from agent.tools.registry import TOOLS
from agent.tools.shell import RunCommandArgs
from contracts import ActionProposal, ReasonCode, Verdict
from contracts.errors import InvalidPath, PathOutsideWorkspace
from contracts.policy import PolicyProfile


def verify(workspace: Path, proposal: ActionProposal, profile: PolicyProfile = PolicyProfile.DEVELOPER) -> Verdict:
    if proposal.kind != "tool_call":
        return _reject(ReasonCode.NOT_A_TOOL_CALL, f"a {proposal.kind} proposal runs no tool")
    tool = TOOLS.get(proposal.tool or "")
    if tool is None:
        known = ", ".join(sorted(TOOLS))
        return _reject(ReasonCode.UNKNOWN_TOOL, f"unknown tool {proposal.tool!r}; tools: {known}")
    try:
        arguments = tool.arguments.model_validate(proposal.arguments)
    except ValidationError as error:
        return _reject(ReasonCode.INVALID_ARGUMENTS, describe_validation_error(error))
    for field in tool.path_fields:
        try:
            resolve_in_workspace(workspace, getattr(arguments, field))
        except PathOutsideWorkspace as error:
            return _reject(ReasonCode.PATH_OUTSIDE_WORKSPACE, str(error))
        except InvalidPath as error:
            return _reject(ReasonCode.INVALID_ARGUMENTS, str(error))
    if isinstance(arguments, RunCommandArgs):
        finding = check_command(arguments.command, workspace)
        if finding is not None:
            return _reject(finding.code, finding.message)
    if tool.approval_rule is not None and (reason := tool.approval_rule(arguments)):
        return Verdict(decision="needs_approval", reason_code=ReasonCode.APPROVAL_RULE, message=reason)
    if not profile.permits(tool.risk):
        message = f"{tool.name} is a {tool.risk} action, above the run's {profile} profile"
        return Verdict(decision="needs_approval", reason_code=ReasonCode.RISK_ABOVE_PROFILE, message=message)
    return Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem, naming the field, as a model (or a person) needs it."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return "invalid arguments: " + "; ".join(problems)


def _reject(code: ReasonCode, message: str) -> Verdict:
    return Verdict(decision="reject", reason_code=code, message=message)
