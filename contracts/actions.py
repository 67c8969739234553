"""One step of an agent: what the model proposed, what code decided, what the tool did."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue


class ActionProposal(BaseModel):
    """A model's proposal for the next step.

    `tool_call` asks for a tool to run; `finish` claims the task is done (code checks);
    `give_up` says the model cannot go on. None of them is obeyed without a check.
    """

    model_config = ConfigDict(extra="forbid")

    kind: Literal["tool_call", "finish", "give_up"] = "tool_call"
    thought: str = ""
    tool: str | None = None
    # Tool arguments are JSON by nature; the verifier validates them against the tool's model.
    arguments: dict[str, JsonValue] = Field(default_factory=dict)

    def describe(self) -> str:
        if self.kind != "tool_call":
            return self.kind
        shown = ", ".join(f"{key}={_short(value)}" for key, value in self.arguments.items())
        return f"{self.tool}({shown})"


def _short(value: JsonValue, limit: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


class ReasonCode(StrEnum):
    ALLOWED = "allowed"
    NOT_A_TOOL_CALL = "not_a_tool_call"
    UNKNOWN_TOOL = "unknown_tool"
    INVALID_ARGUMENTS = "invalid_arguments"
    PATH_OUTSIDE_WORKSPACE = "path_outside_workspace"


class Verdict(BaseModel):
    allowed: bool
    reason_code: ReasonCode
    message: str = ""


class RiskLevel(StrEnum):
    READ = "read"
    WRITE = "write"
    EXECUTE = "execute"
    EXTERNAL_EFFECT = "external_effect"


class ToolSpec(BaseModel):
    """What a model is told about a tool: its name, purpose and argument schema."""

    name: str
    description: str
    risk: RiskLevel
    parameters: dict[str, JsonValue]


class ToolResult(BaseModel):
    tool: str
    ok: bool
    output: str = ""
    error: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    truncated: bool = False
    duration_ms: float = 0.0
    # Where the tool ran: "in-process" for file tools, the sandbox backend for commands.
    backend: str = "in-process"

    def summary(self) -> str:
        if self.timed_out:
            return f"{self.tool}: timed out"
        if not self.ok:
            return f"{self.tool}: error: {self.error or 'failed'}"
        if self.exit_code is not None:
            return f"{self.tool}: exit {self.exit_code}"
        return f"{self.tool}: ok"
