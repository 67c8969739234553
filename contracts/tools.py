"""What deterministic code needs to know of each tool, as data: its risk, and whether it only
reads, acts outside the workspace, or has an approval rule over the run's earlier effects.

The tools themselves (their arguments, implementations and rules) live in
`agent.tools.registry`, which loads the sandbox and the service clients; workflow code decides
on these facts alone. `tests/test_workflow_imports.py` checks that they agree with the registry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import Field

from contracts.actions import RiskLevel


@dataclass(frozen=True)
class ToolFacts:
    risk: RiskLevel
    # Reads the workspace in-process and runs nothing: it cannot change a workspace.
    read_only: bool = False
    # Acts on something outside its workspace (a service): the run remembers its effect.
    external_effects: bool = False
    # Its approval depends on the run's earlier effects of the same tool (a refund limit).
    approval_rule: bool = False


_READ = ToolFacts(RiskLevel.READ, read_only=True)
_WRITE = ToolFacts(RiskLevel.WRITE)

TOOL_FACTS: Mapping[str, ToolFacts] = {
    "read_file": _READ,
    "search": _READ,
    "list_files": _READ,
    "write_file": _WRITE,
    "replace_in_file": _WRITE,
    "edit_lines": _WRITE,
    "run_command": ToolFacts(RiskLevel.EXECUTE),
    "issue_refund": ToolFacts(RiskLevel.EXTERNAL_EFFECT, external_effects=True, approval_rule=True),
    "create_ticket": ToolFacts(RiskLevel.EXTERNAL_EFFECT, external_effects=True),
    "disable_account": ToolFacts(RiskLevel.EXTERNAL_EFFECT, external_effects=True, approval_rule=True),
}

# Tools that cannot change a workspace: they read it in-process, and run nothing.
READ_ONLY_TOOLS = frozenset(name for name, facts in TOOL_FACTS.items() if facts.read_only)


def facts_of(tool: str | None) -> ToolFacts | None:
    """The facts of a proposal's tool; None for a name that is no tool."""
    return TOOL_FACTS.get(tool or "")


# Names a task's `tools:` may use for several tools at once. Hyphenated, so a group never reads
# as a tool (tool names have underscores).
TOOL_GROUPS: Mapping[str, tuple[str, ...]] = {
    "workspace-read": ("read_file", "search", "list_files"),
    "workspace": ("read_file", "search", "list_files", "write_file", "replace_in_file", "edit_lines", "run_command"),
    "operations": ("issue_refund", "create_ticket", "disable_account"),
}
# What a task that names no tools offers: a coding task's.
DEFAULT_TOOLS = ("workspace",)


def resolve_tools(names: Iterable[str]) -> list[str]:
    """Tool names and groups as the tools they name, each once, in the registry's order (the
    order the prompt lists them in). Raises ValueError naming every unknown name and what is
    known."""
    names = list(names)
    unknown = [name for name in names if name not in TOOL_FACTS and name not in TOOL_GROUPS]
    if unknown:
        raise ValueError(
            f"unknown tool or group {', '.join(repr(name) for name in unknown)}; "
            f"tools: {', '.join(TOOL_FACTS)}; groups: {', '.join(TOOL_GROUPS)}"
        )
    wanted = {tool for name in names for tool in TOOL_GROUPS.get(name, (name,))}
    return [tool for tool in TOOL_FACTS if tool in wanted]


def offered_tools() -> Any:
    """The field carrying the tools a run's task offers (RunRequest.tools, and the inputs of the
    calls that show or run a tool): None for every tool, as before tasks declared theirs, and
    then left out of the JSON, so a value recorded before the field existed is written again
    byte for byte."""
    return Field(default=None, exclude_if=lambda value: value is None)


def not_offered(tool: str | None, offered: Iterable[str] | None) -> str | None:
    """Why a run may not call `tool`: the task does not offer it (None: every tool is offered,
    as in runs made before tasks declared theirs). None when it may."""
    if offered is None:
        return None
    offered = list(offered)
    if tool in offered:
        return None
    return f"this task offers no tool {tool!r}; its tools: {', '.join(offered) or '(none)'}"
