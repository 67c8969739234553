"""A benchmark task as declared on disk (`experiments/tasks/ID/task.yaml`)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from contracts.budget import RunBudget
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition
from contracts.tools import DEFAULT_TOOLS, resolve_tools


def _known(name: str) -> str:
    resolve_tools([name])  # raises, naming what is known
    return name


# A tool's name or a group's (contracts.tools.TOOL_GROUPS), checked one by one, so that each
# unknown one is a problem of its own place (`tools[2]`).
ToolName = Annotated[str, AfterValidator(_known)]


class TaskSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[a-z0-9][a-z0-9-]*$")
    title: str = Field(min_length=1)
    goal: str = Field(min_length=1)
    tags: list[str] = Field(default_factory=list)
    # Directory, relative to the task's directory, copied fresh for every run.
    fixture: str = "repo"
    # The scripted provider's script, relative to the task's directory. Optional: a task for
    # real models may have none (only the scripted provider refuses it); one named here
    # explicitly must exist.
    script: str = "script.yaml"
    budget: RunBudget = Field(default_factory=lambda: RunBudget())
    profile: PolicyProfile = PolicyProfile.DEVELOPER
    # How the end state is judged, for both runtimes.
    postconditions: list[Postcondition] = Field(min_length=1)
    # The tools its runs may call, by name or group (contracts.tools.TOOL_GROUPS): only these are
    # shown to the model and run, in both runtimes. By default a coding task's, the workspace's.
    tools: list[ToolName] = Field(default_factory=lambda: list(DEFAULT_TOOLS), min_length=1)

    def offered_tools(self) -> list[str]:
        """`tools` as the tool names they stand for, in the registry's order."""
        return resolve_tools(self.tools)
