"""A benchmark task as declared on disk (`experiments/tasks/ID/task.yaml`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from contracts.budget import RunBudget
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition


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
