"""The tools an agent may propose, each with its argument model, risk and implementation.

The argument model is the tool's contract: its JSON schema is what a model sees, and the
verifier and the executor validate against the same model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from agent.sandbox import CommandOutcome
from agent.tools import files, ops, shell
from agent.tools.context import ToolContext
from contracts import RiskLevel, ToolSpec

ToolRun = Callable[[ToolContext, Any], Awaitable[str | CommandOutcome]]
# Reads the target system: the recorded effect of this call (by its idempotency key), or None.
ToolProbe = Callable[[ToolContext, Any], Awaitable[str | None]]
# A reason this particular call needs a person's approval, or None.
ApprovalRule = Callable[[Any], str | None]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    risk: RiskLevel
    run: ToolRun
    # Argument fields that name workspace paths; the verifier confines them.
    path_fields: tuple[str, ...] = ()
    # Whether the tool acts on anything outside its workspace.
    external_effects: bool = False
    probe: ToolProbe | None = None
    approval_rule: ApprovalRule | None = None
    # Whether the tool runs commands (and so needs the sandbox chosen for this worker).
    uses_sandbox: bool = False

    @property
    def recorded(self) -> bool:
        """Calls that change something go through the effect store (intent, then effect)."""
        return self.risk != RiskLevel.READ

    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=self.description,
            risk=self.risk,
            parameters=self.arguments.model_json_schema(),
        )


_TOOLS = (
    Tool(
        "read_file",
        "Read a text file from the workspace.",
        files.ReadFileArgs,
        RiskLevel.READ,
        files.read_file,
        path_fields=("path",),
    ),
    Tool(
        "list_files",
        "List the files under a workspace directory.",
        files.ListFilesArgs,
        RiskLevel.READ,
        files.list_files,
        path_fields=("path",),
    ),
    Tool(
        "write_file",
        "Create or overwrite a workspace file with the given content.",
        files.WriteFileArgs,
        RiskLevel.WRITE,
        files.write_file,
        path_fields=("path",),
    ),
    Tool(
        "replace_in_file",
        "Replace exact text in a workspace file.",
        files.ReplaceInFileArgs,
        RiskLevel.WRITE,
        files.replace_in_file,
        path_fields=("path",),
    ),
    Tool(
        "run_command",
        "Run a shell command in the workspace root and return its exit code and output.",
        shell.RunCommandArgs,
        RiskLevel.EXECUTE,
        shell.run_command,
        uses_sandbox=True,
    ),
    Tool(
        "issue_refund",
        "Refund part or all of an order through the payments service. Amounts are in cents.",
        ops.IssueRefundArgs,
        RiskLevel.EXTERNAL_EFFECT,
        ops.issue_refund,
        external_effects=True,
        probe=ops.find_refund,
        approval_rule=ops.refund_approval,
    ),
    Tool(
        "create_ticket",
        "Open a support ticket in the ticketing service.",
        ops.CreateTicketArgs,
        RiskLevel.EXTERNAL_EFFECT,
        ops.create_ticket,
        external_effects=True,
        probe=ops.find_ticket,
    ),
    Tool(
        "disable_account",
        "Disable an active user account, so its user can no longer sign in.",
        ops.DisableAccountArgs,
        RiskLevel.EXTERNAL_EFFECT,
        ops.disable_account,
        external_effects=True,
        probe=ops.find_disabled_account,
    ),
)

TOOLS: Mapping[str, Tool] = {tool.name: tool for tool in _TOOLS}


def tool_specs() -> list[ToolSpec]:
    return [tool.spec() for tool in _TOOLS]
