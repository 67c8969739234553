"""The tools an agent may propose, each with its argument model, risk and implementation.

The argument model is the tool's contract: its JSON schema is what a model sees, and the
verifier and the executor validate against the same model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from activities.tools import files, shell
from activities.tools.commands import CommandOutcome
from contracts import RiskLevel, ToolSpec

ToolRun = Callable[[Path, Any], Awaitable[str | CommandOutcome]]


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
    ),
)

TOOLS: Mapping[str, Tool] = {tool.name: tool for tool in _TOOLS}


def tool_specs() -> list[ToolSpec]:
    return [tool.spec() for tool in _TOOLS]
