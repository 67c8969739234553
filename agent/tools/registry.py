"""The tools an agent may propose, each with its argument model, risk and implementation.

The argument model is the tool's contract: its JSON schema is what a model sees, and the
verifier and the executor validate against the same model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from pydantic import BaseModel

from agent.sandbox import CommandOutcome
from agent.tools import files, ops, search, shell
from agent.tools.context import ToolContext
from agent.tools.output import truncate
from agent.tools.viewer import WINDOW_LINES
from contracts import RiskLevel, ToolSpec
from contracts.effects import EarlierEffect

ToolRun = Callable[[ToolContext, Any], Awaitable[str | CommandOutcome]]
# Reads the target system: the recorded effect of this call (by its idempotency key), or None.
ToolProbe = Callable[[ToolContext, Any], Awaitable[str | None]]
# A reason this particular call needs a person's approval, or None: from its arguments and the
# run's earlier effects of the same tool (agent.earlier_effects), so that a limit holds over the
# run, not one call.
ApprovalRule = Callable[[Any, Sequence[EarlierEffect]], str | None]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    arguments: type[BaseModel]
    risk: RiskLevel
    run: ToolRun
    # Argument fields that name workspace paths; the verifier confines them.
    path_fields: tuple[str, ...] = ()
    # The fields naming the file a call writes and the text it writes there: the verifier asks
    # `agent.policy.runs_later` whether that file runs code later (a hook, `.envrc`, CI).
    writes: tuple[str, str] | None = None
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


def _bounded(run: ToolRun) -> ToolRun:
    """Every observation fits a small model's context: text past MAX_OUTPUT_CHARS is cut, with a
    note of how much. A command's outcome passes as it is: run_command bounds its own, keeping
    the whole output as an artifact."""

    async def bounded(ctx: ToolContext, arguments: Any) -> str | CommandOutcome:
        outcome = await run(ctx, arguments)
        return truncate(outcome)[0] if isinstance(outcome, str) else outcome

    return bounded


# Descriptions are one short sentence: every prompt lists every tool, and a small model's
# context is 4,096 tokens.
_TOOLS = (
    Tool(
        "read_file",
        f"Show a file's numbered lines, {WINDOW_LINES} at a time.",
        files.ReadFileArgs,
        RiskLevel.READ,
        _bounded(files.read_file),
        path_fields=("path",),
    ),
    Tool(
        "search",
        "Find the lines of workspace files that contain pattern.",
        search.SearchArgs,
        RiskLevel.READ,
        _bounded(search.search),
        path_fields=("path",),
    ),
    Tool(
        "list_files",
        "List the files under a workspace directory.",
        files.ListFilesArgs,
        RiskLevel.READ,
        _bounded(files.list_files),
        path_fields=("path",),
    ),
    Tool(
        "write_file",
        "Create or overwrite a workspace file with the given content.",
        files.WriteFileArgs,
        RiskLevel.WRITE,
        _bounded(files.write_file),
        path_fields=("path",),
        writes=("path", "content"),
    ),
    Tool(
        "replace_in_file",
        "Replace exact text in a workspace file.",
        files.ReplaceInFileArgs,
        RiskLevel.WRITE,
        _bounded(files.replace_in_file),
        path_fields=("path",),
        writes=("path", "new"),
    ),
    Tool(
        "edit_lines",
        "Replace lines start_line to end_line of a file with new.",
        files.EditLinesArgs,
        RiskLevel.WRITE,
        _bounded(files.edit_lines),
        path_fields=("path",),
        writes=("path", "new"),
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
        _bounded(ops.issue_refund),
        external_effects=True,
        probe=ops.find_refund,
        approval_rule=ops.refund_approval,
    ),
    Tool(
        "create_ticket",
        "Open a support ticket in the ticketing service.",
        ops.CreateTicketArgs,
        RiskLevel.EXTERNAL_EFFECT,
        _bounded(ops.create_ticket),
        external_effects=True,
        probe=ops.find_ticket,
    ),
    Tool(
        "disable_account",
        "Disable an active user account, so its user can no longer sign in.",
        ops.DisableAccountArgs,
        RiskLevel.EXTERNAL_EFFECT,
        _bounded(ops.disable_account),
        external_effects=True,
        probe=ops.find_disabled_account,
        approval_rule=ops.account_approval,
    ),
)

TOOLS: Mapping[str, Tool] = {tool.name: tool for tool in _TOOLS}
# Tools that cannot change a workspace: they read it in-process, and run nothing.
READ_ONLY_TOOLS = frozenset(tool.name for tool in _TOOLS if tool.risk == RiskLevel.READ and not tool.uses_sandbox)


@cache
def _specs(offered: frozenset[str] | None) -> tuple[ToolSpec, ...]:
    # Every proposal lists the tools; their JSON schemas are built once per process and offer.
    return tuple(tool.spec() for tool in _TOOLS if offered is None or tool.name in offered)


def tool_specs(offered: Iterable[str] | None = None) -> list[ToolSpec]:
    """The specs of the tools a run's task offers (RunRequest.tools), in the registry's order;
    None: every tool."""
    return [spec.model_copy() for spec in _specs(None if offered is None else frozenset(offered))]
