"""A run from request to result, shared by the durable and the baseline runtime."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from contracts.actions import ActionProposal, Verdict
from contracts.approval import ApprovalDecision, PendingApproval
from contracts.budget import RunBudget
from contracts.goal import GoalSpec
from contracts.plan import Plan
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition, PostconditionResult
from contracts.provider import ProviderConfig, Turn
from contracts.run_state import RunState
from contracts.sandbox import SandboxReport
from contracts.usage import Usage

Runtime = Literal["durable", "baseline"]


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


class RunCarry(BaseModel):
    """What a run carries across continue-as-new: everything its next generation needs to go
    on exactly where this one stopped, typed."""

    generation: int
    # Where the last generation stopped: between two steps (PLANNING, COMMITTED or REJECTED).
    state: RunState
    workspace: str
    checkpoint: str
    goal_spec: GoalSpec
    plan: Plan
    task_index: int
    turns: list[Turn]
    step: int
    usage: Usage
    task_usage: Usage
    started_at: datetime
    task_started_at: datetime
    waited_s: float
    task_waited_s: float
    steps: list[StepRecord]
    approvals: list[ApprovalDecision]
    wasted: Usage = Field(default_factory=Usage)
    sandbox: SandboxReport | None = None


class RunRequest(BaseModel):
    # Also the workflow id and the ledger's file name: no path separators.
    run_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    # The world the run acts on (its workspace, its tenant in external services). A baseline
    # run restarted after a crash keeps its trial's world under a new run id, as a user's
    # rerun would; by default the world is the run's own.
    trial_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
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
    # Set by the workflow itself when it continues as new.
    resume: RunCarry | None = None

    @property
    def world_id(self) -> str:
        return self.trial_id or self.run_id


class RunProgress(BaseModel):
    state: RunState
    step: int
    task_id: str | None = None
    steps: list[StepRecord] = Field(default_factory=list)
    checkpoint: str = ""
    pending_approval: PendingApproval | None = None
    usage: Usage = Field(default_factory=Usage)
    # Known once the workspace is prepared, by the worker that will run the commands.
    sandbox: SandboxReport | None = None


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
    # The part of `usage` spent on nothing: failed attempts and rejected steps.
    wasted: Usage = Field(default_factory=Usage)
    wall_time_s: float = 0.0
    checkpoint: str = ""
    approvals: list[ApprovalDecision] = Field(default_factory=list)
    # How many times the workflow continued as new to keep its history small.
    generations: int = 1
    # Where the agent's commands ran (None in results recorded before runs said so).
    sandbox: SandboxReport | None = None

    @property
    def succeeded(self) -> bool:
        return self.outcome == RunState.COMPLETED
