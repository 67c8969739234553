"""What deterministic code needs to know of each tool, as data: its risk, and whether it only
reads, acts outside the workspace, or has an approval rule over the run's earlier effects.

The tools themselves (their arguments, implementations and rules) live in
`agent.tools.registry`, which loads the sandbox and the service clients; workflow code decides
on these facts alone. `tests/test_workflow_imports.py` checks that they agree with the registry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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
