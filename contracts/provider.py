"""What goes to a model provider and what comes back, for both runtimes."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from contracts.actions import ActionProposal
from contracts.goal import GoalSpec
from contracts.plan import PlanTask
from contracts.postconditions import Postcondition
from contracts.usage import Usage


class ProviderConfig(BaseModel):
    """Which provider to use. Never holds secrets: workers resolve keys themselves."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["scripted"] = "scripted"
    # Scripted provider: the task's script file.
    script_path: str | None = None
    seed: int = 0


class Turn(BaseModel):
    """One earlier step as the model sees it: its proposal and what came of it."""

    step: int
    # None when the model's answer was unusable; the feedback says what was wrong with it.
    proposal: ActionProposal | None
    outcome: Literal["committed", "rejected"]
    feedback: str


class CompileGoalRequest(BaseModel):
    provider: ProviderConfig
    goal: str
    # The task's declared postconditions, carried into the GoalSpec unchanged.
    acceptance: list[Postcondition] = Field(default_factory=list)


class PlanRequest(BaseModel):
    provider: ProviderConfig
    goal_spec: GoalSpec


class ProposalRequest(BaseModel):
    """Context for one proposal.

    The durable runtime sends the current plan task and that task's turns; the baseline
    sends `task=None` and its whole conversation. That difference is the orchestration's.
    The worker adds the tool specs itself, so they never travel through workflow history.
    """

    provider: ProviderConfig
    goal: str
    task: PlanTask | None = None
    history: list[Turn] = Field(default_factory=list)
    # Which call this is, for fault injection and records; not shown to the model.
    run_id: str = ""
    step: int = 0


class ProposalResult(BaseModel):
    """A proposal, or the reason the model's answer was unusable (fed back to the model)."""

    proposal: ActionProposal | None = None
    invalid_output: str | None = None
    usage: Usage
    # Attempts of this same call that failed before it (a 429, a timeout): spent all the same.
    failed_attempts: Usage = Field(default_factory=Usage)
