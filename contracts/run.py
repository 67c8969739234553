"""A run from request to result, shared by the durable and the baseline runtime."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

from contracts.actions import ActionProposal, ExecutedCall, Verdict
from contracts.approval import ApprovalDecision, PendingApproval
from contracts.budget import DiskUse, RunBudget
from contracts.effects import EarlierEffect, UnapprovedEffect
from contracts.envelopes import RecordStepInput
from contracts.goal import GoalSpec
from contracts.plan import Plan, Subtask
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition, PostconditionResult
from contracts.provider import ProviderConfig, Turn
from contracts.retries import RetryBudget
from contracts.run_state import RunState
from contracts.sandbox import SandboxReport
from contracts.tools import offered_tools
from contracts.usage import Usage
from contracts.wire_names import WIRE_NAMES, renamed

Runtime = Literal["durable", "baseline"]


class StepRecord(BaseModel):
    model_config = WIRE_NAMES

    step: int
    # The plan's subtask the step was part of. A baseline run has no plan: it does its task as
    # one subtask, named by the task's id.
    subtask_id: str = renamed("subtask_id", old="task_id")
    outcome: Literal["committed", "rejected"]
    proposal: ActionProposal | None = None
    verdict: Verdict | None = None
    result: str = ""
    postconditions: str = ""
    reason: str = ""
    usage: Usage = Field(default_factory=Usage)


class SubtaskProgress(BaseModel):
    """The plan's subtask in progress: what a new subtask starts without (one assignment,
    `SubtaskProgress(id=..., index=..., started_at=...)`), and a run continued as new carries."""

    # The subtask (None before the plan and once they are done) and its position in the plan.
    id: str | None = None
    index: int = 0
    # The model's turns in the subtask.
    turns: list[Turn] = Field(default_factory=list)
    # The same turns in the artifact store: the reference of the latest (agent.conversation),
    # which a proposal carries instead of the turns themselves.
    conversation: str | None = None
    # The postcondition status the model was last told in the subtask: a step that leaves it as
    # it was says so in a few words instead of again in full.
    status: str = ""
    # The subtask's latest postcondition check, which still describes the workspace: a step that
    # only read leaves it true, and is not checked again.
    last_check: PostconditionResult | None = None
    usage: Usage = Field(default_factory=Usage)
    # The model's claims that the subtask was done which its checks refused (RunBudget.max_refused_claims).
    # Left out of the JSON at 0, as in every snapshot recorded before it.
    refused_claims: int = Field(default=0, ge=0, exclude_if=lambda value: value == 0)
    started_at: datetime | None = None
    # Time spent waiting for a person: not charged to the subtask's wall-time budget.
    waited_s: float = 0.0


class PlanProgress(BaseModel):
    """A run with parallel subtasks (RunRequest.parallel_subtasks): the version of its plan (1,
    then one more for each revision) and the subtasks whose work is merged, of every version."""

    plan_version: int = 1
    merged: list[str] = Field(default_factory=list)


# Where the fields of the flat snapshot (recorded histories, continue-as-new inputs and forks
# made before the grouping) went.
_FLAT_TASK = {
    "task_id": "id",
    "task_index": "index",
    "turns": "turns",
    "conversation": "conversation",
    "task_status": "status",
    "last_check": "last_check",
    "task_usage": "usage",
    "task_started_at": "started_at",
    "task_waited_s": "waited_s",
}
_FLAT_SUBTASKS = {"plan_version": "plan_version", "merged_tasks": "merged"}


class RunSnapshot(BaseModel):
    """A durable run's whole state, as one typed object: what the workflow decides on, what
    continue-as-new carries to the next generation unchanged, and what the `progress` query
    returns (its steps from an index on). A field added here is carried and shown everywhere.
    """

    model_config = WIRE_NAMES

    # Continue-as-new generations so far, this one included.
    generation: int = 1
    state: RunState = RunState.CREATED
    step: int = 0
    subtask: SubtaskProgress = renamed("subtask", old="task", default_factory=SubtaskProgress)
    workspace: str = ""
    # The last checkpoint: the git commit a rejected step rolls back to.
    checkpoint: str = ""
    sandbox: SandboxReport | None = None
    goal_spec: GoalSpec | None = None
    # The plan's subtasks in the order they run.
    plan: Plan | None = None
    steps: list[StepRecord] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    # The part of `usage` spent on nothing: failed attempts and rejected steps.
    wasted: Usage = Field(default_factory=Usage)
    started_at: datetime | None = None
    # Time spent waiting for a person: not charged to the wall-time budgets.
    waited_s: float = 0.0
    pending_approval: PendingApproval | None = None
    approvals: list[ApprovalDecision] = Field(default_factory=list)
    # Tool calls that ran and succeeded, for the repeated-action check.
    executed: list[ExecutedCall] = Field(default_factory=list)
    # The external effects the run made, for the approval rules' limits over the run (a refund
    # split in twelve): its own, its parent's before a fork's step, and its subtasks'.
    effects: list[EarlierEffect] = Field(default_factory=list)
    # The workspace's files at the start, as every prompt lists them.
    workspace_files: list[str] = Field(default_factory=list)
    # The last step's record (checkpoint, ledger events, turn), not written yet: the next
    # proposal's activity writes it first (fused steps), or the run's end does. `checkpoint`
    # and `subtask.conversation` are the ones before it.
    pending_record: RecordStepInput | None = None
    plan_progress: PlanProgress = renamed("plan_progress", old="subtasks", default_factory=PlanProgress)
    # What the run holds on the host's disk, for its RunBudget.max_disk_bytes: the workspace and
    # checkpoints as the last step's record measured them, the artifacts its results refer to.
    disk: DiskUse = Field(default_factory=DiskUse)

    @model_validator(mode="before")
    @classmethod
    def _grouped(cls, data: Any) -> Any:
        """The flat form (subtask-level fields side by side with the run's) still reads: a run
        recorded or continued as new before the grouping carries it. The groups' serialized
        names, `task` and `subtasks`, are those of `subtask` and `plan_progress`."""
        if not isinstance(data, dict) or not (_FLAT_TASK.keys() | _FLAT_SUBTASKS.keys()) & data.keys():
            return data
        data = dict(data)
        for group, fields in (("task", _FLAT_TASK), ("subtasks", _FLAT_SUBTASKS)):
            flat = {new: data.pop(old) for old, new in fields.items() if old in data}
            if flat and group not in data:
                data[group] = flat
        return data


class ForkOrigin(BaseModel):
    """Where a forked run comes from: its parent's steps 1..from_step are its own (taken from
    the parent's record, never run again), and its workspace starts as the parent's was at
    `checkpoint`, the parent's checkpoint after step `from_step`."""

    parent_run_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    from_step: int = Field(ge=0)
    parent_workspace: str
    checkpoint: str = Field(pattern=r"^[0-9a-f]{40}$")
    # For a run that acted on the operations service: its parent's world (tenant), and the
    # idempotency keys of the effects the parent made in steps 1..from_step. The fork's world
    # is the parent's seed with those effects copied in, none made again (POST /fork).
    parent_world_id: str | None = None
    effect_keys: list[str] = Field(default_factory=list)


class SubtaskOrigin(BaseModel):
    """A subtask's child run: one subtask of its parent's plan, in a git worktree of the parent's
    workspace at `checkpoint`; its goal and plan are its parent's, so it asks no model for them."""

    model_config = WIRE_NAMES

    parent_run_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    parent_workspace: str
    checkpoint: str = Field(pattern=r"^[0-9a-f]{40}$")
    subtask: Subtask = renamed("subtask", old="task")
    plan_version: int = Field(ge=1)
    workspace_files: list[str] = Field(default_factory=list)
    # The parent's effects so far (its earlier children's included): the child's approval limits
    # count them (RunSnapshot.effects). Not those of siblings running at the same time: each of
    # k children at once may go up to a limit before a person is asked, k times it in all.
    effects: list[EarlierEffect] = Field(default_factory=list)


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
    # Set by the workflow itself when it continues as new: where the last generation stopped.
    # Set by `starter fork` too, with `fork`: the parent's state after the fork's step.
    resume: RunSnapshot | None = None
    fork: ForkOrigin | None = None
    # Subtasks with no dependency between them run at once, each a child workflow in its own
    # git worktree with its own budget, merged back in dependency order (workflows.subtasks).
    # Off by default: runs started before it, and their recorded histories, go one subtask at a time.
    parallel_subtasks: bool = False
    # Set by such a run for each of its children: which subtask the child does.
    subtask: SubtaskOrigin | None = None
    # The tools the task offers (TaskSpec.offered_tools), the only ones shown to the model and
    # run (None: every tool, as in runs recorded before tasks declared theirs).
    tools: list[str] | None = offered_tools()
    # Whether the model is told the task's acceptance checks and, after each step, which of them
    # do not hold yet: one setting for every arm of an experiment (equal information). None:
    # each runtime as before (the durable one tells, the baseline does not). The durable
    # workflow checks a "finish" either way. Left out of the JSON when None, as `tools`.
    show_acceptance: bool | None = Field(default=None, exclude_if=lambda value: value is None)
    # Attempts and backoff of model and tool calls, the same in both runtimes (None: each
    # runtime's own policies, as before).
    retries: RetryBudget | None = Field(default=None, exclude_if=lambda value: value is None)

    @property
    def world_id(self) -> str:
        return self.trial_id or self.run_id


class RunResult(BaseModel):
    run_id: str
    runtime: Runtime
    task_id: str
    outcome: RunState
    reason: str = ""
    workspace: str = ""
    plan: list[str] = Field(default_factory=list)
    # What each of `plan`'s subtasks waits for (its `depends_on`), so a plan that is not a chain
    # is shown as one. Left out of the JSON when empty: results recorded before it (and runs
    # with no plan) are written again byte for byte.
    plan_depends_on: dict[str, list[str]] = Field(default_factory=dict, exclude_if=lambda value: not value)
    steps: list[StepRecord] = Field(default_factory=list)
    acceptance: PostconditionResult | None = None
    usage: Usage = Field(default_factory=Usage)
    # The part of `usage` spent on nothing: failed attempts and rejected steps.
    wasted: Usage = Field(default_factory=Usage)
    wall_time_s: float = 0.0
    checkpoint: str = ""
    approvals: list[ApprovalDecision] = Field(default_factory=list)
    # The external effects the run made (RunSnapshot.effects): a subtask's parent counts its
    # child's toward its own limits.
    effects: list[EarlierEffect] = Field(default_factory=list)
    # Calls that needed a person's approval and ran without one (each fails the run). Left out of
    # the JSON when empty, so results recorded before it are written again byte for byte.
    unapproved_effects: list[UnapprovedEffect] = Field(default_factory=list, exclude_if=lambda value: not value)
    # How many times the workflow continued as new to keep its history small.
    generations: int = 1
    # Where the agent's commands ran (None in results recorded before runs said so).
    sandbox: SandboxReport | None = None
    # What the run held on the host's disk at its end, as its budget counted it (None: not
    # counted, in results recorded before, or a run that predates the disk budget).
    disk: DiskUse | None = None

    @property
    def succeeded(self) -> bool:
        return self.outcome == RunState.COMPLETED
