"""A run from request to result, shared by the durable and the baseline runtime."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from contracts.actions import ActionProposal, Verdict
from contracts.budget import RunBudget
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition, PostconditionResult
from contracts.provider import ProviderConfig
from contracts.run_state import RunState
from contracts.usage import Usage

Runtime = Literal["durable", "baseline"]


class RunRequest(BaseModel):
    run_id: str = Field(min_length=1)
    runtime: Runtime
    task_id: str
    goal: str
    # Absolute path of the fixture; every run works on its own fresh copy.
    fixture_dir: str
    acceptance: list[Postcondition]
    provider: ProviderConfig
    budget: RunBudget = Field(default_factory=lambda: RunBudget())
    # What the run may do without a person's approval.
    profile: PolicyProfile = PolicyProfile.DEVELOPER
    # The durable runtime always verifies; the baseline only when asked (an experiment arm).
    baseline_verifies: bool = False
    # Set by the starter when the server has the lab's search attributes registered.
    search_attributes: bool = False


class StepRecord(BaseModel):
    step: int
    task_id: str
    outcome: Literal["committed", "rejected"]
    proposal: ActionProposal | None = None
    verdict: Verdict | None = None
    result: str = ""
    postconditions: str = ""
    reason: str = ""
    usage: Usage = Field(default_factory=Usage)


class RunProgress(BaseModel):
    state: RunState
    step: int
    task_id: str | None = None
    steps: list[StepRecord] = Field(default_factory=list)


class RunResult(BaseModel):
    run_id: str
    runtime: Runtime
    task_id: str
    outcome: RunState
    reason: str = ""
    workspace: str = ""
    plan: list[str] = Field(default_factory=list)
    steps: list[StepRecord] = Field(default_factory=list)
    acceptance: PostconditionResult | None = None
    usage: Usage = Field(default_factory=Usage)
    wall_time_s: float = 0.0

    @property
    def succeeded(self) -> bool:
        return self.outcome == RunState.COMPLETED
