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
    # A tool the run's task does not offer (TaskSpec.tools): not shown to the model, not run
    TOOL_NOT_OFFERED = "tool_not_offered"
    INVALID_ARGUMENTS = "invalid_arguments"
    PATH_OUTSIDE_WORKSPACE = "path_outside_workspace"
    # Commands, from parsing them (agent.policy)
    DESTRUCTIVE_COMMAND = "destructive_command"
    PRIVILEGE_CHANGE = "privilege_change"
    SANDBOX_ESCAPE = "sandbox_escape"
    RESOURCE_EXHAUSTION = "resource_exhaustion"
    NETWORK_ACCESS = "network_access"
    SECRET_ACCESS = "secret_access"
    UNANALYZABLE_COMMAND = "unanalyzable_command"
    DYNAMIC_CODE = "dynamic_code"
    # A file that runs code later, outside the run: a VCS hook, .envrc, a test entry point
    # given network or process code (needs approval; refused under the stricter profiles)
    PLANTED_PERSISTENCE = "planted_persistence"
    # A path spelled to look like another: percent-encoded, backslashes, look-alike slashes
    SUSPICIOUS_PATH = "suspicious_path"
    # The same call again on files it cannot have changed: it would tell the model nothing new
    REPEATED_ACTION = "repeated_action"
    # Allowed only with a person's approval
    RISK_ABOVE_PROFILE = "risk_above_profile"
    APPROVAL_RULE = "approval_rule"


Decision = Literal["allow", "reject", "needs_approval"]


class Verdict(BaseModel):
    decision: Decision
    reason_code: ReasonCode
    message: str = ""
    # The workspace's content fingerprint when the call was verified ("" when not taken): with
    # the call's digest, what the repeated-action check compares.
    fingerprint: str = ""

    @property
    def allowed(self) -> bool:
        return self.decision == "allow"


class ExecutedCall(BaseModel):
    """A tool call that ran, as the repeated-action check remembers it (agent.verification.executed_call)."""

    step: int
    # proposal_digest: the tool and its arguments.
    digest: str
    # The workspace's content fingerprint before it ran.
    fingerprint: str
    # What it returned, in a line (ToolResult.summary()).
    result: str


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


class ArtifactRef(BaseModel):
    """Content stored outside workflow history, by its sha256."""

    sha256: str
    size_bytes: int
    path: str


class ResourceLimit(StrEnum):
    """A sandbox limit that stopped a command (agent.sandbox.containment)."""

    MEMORY = "memory"
    PROCESSES = "processes"
    DISK = "disk"
    CPU_TIME = "cpu_time"
    WALL_TIME = "wall_time"
    OUTPUT = "output"


class ToolResult(BaseModel):
    tool: str
    ok: bool
    output: str = ""
    error: str | None = None
    exit_code: int | None = None
    timed_out: bool = False
    # `output` was cut; the whole text is in `artifact`.
    truncated: bool = False
    artifact: ArtifactRef | None = None
    duration_ms: float = 0.0
    # Where the tool ran: "in-process" for file tools, the sandbox backend for commands,
    # the service for external effects. `sandboxed` is False when nothing confined it.
    backend: str = "in-process"
    sandboxed: bool = False
    idempotency_key: str | None = None
    # An effect recorded earlier under the same key, returned without acting again
    # (`replayed`), or found in the target system by the tool's probe (`recovered`).
    replayed: bool = False
    recovered: bool = False
    # The failure was the lab's own, injected by an experiment's fault plan (a tool timeout),
    # not the tool's: the record says so, so that no one mistakes it for the tool's behaviour.
    fault_injected: bool = False
    # The sandbox limit that stopped the command, when one did; `error` says what it measured.
    limit: ResourceLimit | None = None

    def summary(self) -> str:
        if self.limit is not None and self.limit != ResourceLimit.WALL_TIME:
            return f"{self.tool}: stopped at its {self.limit} limit: {self.error}"
        if self.timed_out:
            return f"{self.tool}: timed out"
        if not self.ok:
            return f"{self.tool}: error: {self.error or 'failed'}"
        if self.exit_code is not None:
            return f"{self.tool}: exit {self.exit_code}"
        return f"{self.tool}: ok"
