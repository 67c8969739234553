"""Verification before execution: is this a known tool, with valid arguments, inside the workspace?"""

from __future__ import annotations

from pathlib import Path

from pydantic import ValidationError
from temporalio import activity

from activities.errors import InvalidPath, PathOutsideWorkspace
from activities.tools.paths import resolve_in_workspace
from activities.tools.registry import TOOLS
from contracts import ActionProposal, ReasonCode, Verdict, VerifyInput


def verify(workspace: Path, proposal: ActionProposal) -> Verdict:
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
    return Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)


@activity.defn
async def verify_proposal(request: VerifyInput) -> Verdict:
    # Path resolution touches the file system (symlinks), hence an activity, not workflow code.
    return verify(Path(request.workspace), request.proposal)


def describe_validation_error(error: ValidationError) -> str:
    """One line per problem, naming the field, as a model (or a person) needs it."""
    problems = []
    for item in error.errors():
        where = ".".join(str(part) for part in item["loc"]) or "arguments"
        problems.append(f"{where}: {item['msg']}")
    return "invalid arguments: " + "; ".join(problems)


def _reject(code: ReasonCode, message: str) -> Verdict:
    return Verdict(decision="reject", reason_code=code, message=message)
