"""Every activity's input and result envelope, in the order a run calls them. A call whose
result is a contract of its own (a Verdict, a ToolResult, a PostconditionResult) has no result
envelope. The baseline passes the same envelopes to the same core functions.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.actions import ActionProposal, ExecutedCall, ToolResult, Verdict
from contracts.budget import DiskUse
from contracts.effects import EarlierEffect
from contracts.goal import GoalSpec
from contracts.ledger import LedgerEntry, check_run_id
from contracts.plan import Plan, PlanRevision, Subtask
from contracts.policy import PolicyProfile
from contracts.postconditions import Postcondition, PostconditionResult
from contracts.provider import ProviderConfig, Turn
from contracts.sandbox import SandboxReport
from contracts.tools import offered_tools
from contracts.usage import Usage
from contracts.wire_names import WIRE_NAMES, renamed


class PrepareWorkspaceInput(BaseModel):
    # The run's world (RunRequest.world_id): one workspace per world.
    world_id: str
    fixture_dir: str


class PrepareWorkspaceResult(BaseModel):
    path: str
    # The git commit holding the fixture: the first checkpoint.
    checkpoint: str
    # The sandbox this worker runs the agent's commands in (None in histories made before).
    sandbox: SandboxReport | None = None
    # The fixture's files, listed once: every prompt shows the same list, so the prompt's prefix
    # (and a model server's cache of it) does not change when the agent adds a file.
    files: list[str] = Field(default_factory=list)


class PrepareForkInput(BaseModel):
    """A forked run's workspace: the parent's checkpoint repository copied, the checkpoint
    checked out in the fork's own workspace; and its subtask's turns so far, stored as the
    conversation the next proposal refers to."""

    world_id: str
    parent_workspace: str
    checkpoint: str
    turns: list[Turn] = Field(default_factory=list)
    # The parent's world and the effects of its steps 1..K, for a run on the operations
    # service (ForkOrigin); None for a run that only worked in its workspace.
    parent_world_id: str | None = None
    effect_keys: list[str] = Field(default_factory=list)


class PrepareForkResult(BaseModel):
    path: str
    checkpoint: str
    sandbox: SandboxReport | None = None
    # The reference of the turns' conversation (agent.conversation); None without turns.
    conversation: str | None = None


class PrepareSubtaskInput(BaseModel):
    """A subtask's workspace: a git worktree of its parent run's workspace, on a branch of its
    own at the parent's checkpoint (agent.checkpoints.add_worktree)."""

    # The subtask's run id (its child workflow's id): names its directory and its branch.
    run_id: str
    parent_workspace: str
    checkpoint: str


class MergeSubtaskInput(BaseModel):
    """A finished subtask's work, merged into its parent's workspace. Raises MergeConflict."""

    model_config = WIRE_NAMES

    workspace: str
    # The subtask's last checkpoint (a commit on its own branch) and its run id.
    commit: str
    subtask_run_id: str
    subtask_id: str = renamed("subtask_id", old="task_id")


class MergeSubtaskResult(BaseModel):
    # The parent's checkpoint after the merge.
    checkpoint: str


class CompileGoalInput(BaseModel):
    provider: ProviderConfig
    goal: str
    # The task's declared postconditions, carried into the GoalSpec unchanged.
    acceptance: list[Postcondition] = Field(default_factory=list)
    # The tools the prompt lists (names; the worker adds their specs).
    tools: list[str] | None = offered_tools()


class CompileGoalResult(BaseModel):
    goal_spec: GoalSpec
    usage: Usage
    failed_attempts: Usage = Field(default_factory=Usage)


class DraftPlanInput(BaseModel):
    provider: ProviderConfig
    goal_spec: GoalSpec
    # Set when the run drafts its plan again (a subtask out of budget, a merge conflict).
    revision: PlanRevision | None = None
    tools: list[str] | None = offered_tools()


class DraftPlanResult(BaseModel):
    plan: Plan
    usage: Usage
    failed_attempts: Usage = Field(default_factory=Usage)


class ProposeActionInput(BaseModel):
    """Context for one proposal.

    The durable runtime sends the plan's current subtask and that subtask's turns; the baseline
    sends `subtask=None` and its whole conversation. That difference is the orchestration's.
    The worker adds the tool specs itself, so they never travel through workflow history.
    """

    model_config = WIRE_NAMES

    provider: ProviderConfig
    goal: str
    subtask: Subtask | None = renamed("subtask", old="task", default=None)
    history: list[Turn] = Field(default_factory=list)
    # The same turns by reference (agent.conversation): the latest one's, which the activity
    # reads the others from. The durable runtime sends this instead of `history`.
    conversation: str | None = None
    # The workspace the run acts in; its file list is shown to the model (filled in by the
    # activity, which may read the disk).
    workspace: str = ""
    workspace_files: list[str] = Field(default_factory=list)
    # Which call this is, for fault injection and records; not shown to the model.
    run_id: str = ""
    step: int = 0
    # Which attempt of this call this is: set by whoever retries it (the Temporal activity
    # from its attempt number, the baseline from its own count).
    attempt: int = Field(default=1, ge=1)
    # The tools the prompt lists and the answer's schema allows (names: the worker adds the specs).
    tools: list[str] | None = offered_tools()
    # The checks the whole goal is done when, shown to a model that works on the whole goal
    # (the baseline) when its run shows them (RunRequest.show_acceptance); None: not shown.
    acceptance: list[Postcondition] | None = Field(default=None, exclude_if=lambda value: value is None)


class ProposeActionResult(BaseModel):
    """A proposal, or the reason the model's answer was unusable (fed back to the model)."""

    proposal: ActionProposal | None = None
    invalid_output: str | None = None
    usage: Usage
    # Attempts of this same call that failed before it (a 429, a timeout): spent all the same.
    failed_attempts: Usage = Field(default_factory=Usage)


class VerifyProposalInput(BaseModel):
    workspace: str
    proposal: ActionProposal
    profile: PolicyProfile = PolicyProfile.DEVELOPER
    # The run's earlier successful calls: the same one again on unchanged files is refused.
    executed: list[ExecutedCall] = Field(default_factory=list)
    # The run's earlier effects that the proposal's approval rule reads (those of its tool,
    # agent.earlier_effects.for_rule): a limit over the run, not one call.
    effects: list[EarlierEffect] = Field(default_factory=list)
    # A tool outside these is refused before anything else is checked.
    tools: list[str] | None = offered_tools()


class ExecuteToolInput(BaseModel):
    workspace: str
    proposal: ActionProposal
    # With the tool and its arguments, these make the call's idempotency key.
    run_id: str
    step: int
    # The world acted on (RunRequest.world_id); by default the run's own.
    world_id: str | None = None
    # The last checkpoint: a retry that finds an unfinished attempt of a workspace tool
    # restores it before acting again.
    checkpoint: str | None = None
    # What is left of the run's host-disk budget (RunBudget.max_disk_bytes): a command may grow
    # the workspace, and store output, by no more than this. None: no run budget applies.
    disk_left_bytes: int | None = Field(default=None, ge=0)
    # A tool outside these is not run (and, in VerifyAndReadInput, not allowed by the verifier).
    tools: list[str] | None = offered_tools()


class CheckPostconditionsInput(BaseModel):
    workspace: str
    postconditions: list[Postcondition]
    # The run's world, whose state in external services some postconditions read.
    world_id: str | None = None


class VerifyAndReadInput(BaseModel):
    """A call of a read-only tool, verified and, only if the verdict allows it, run: one local
    activity where the two were two (a reading step's verification belongs to its read)."""

    # The call, as it runs if allowed; its proposal and workspace are what is verified.
    execution: ExecuteToolInput
    profile: PolicyProfile = PolicyProfile.DEVELOPER
    # As VerifyProposalInput.executed: earlier runs of this call, for the repeated-action check.
    executed: list[ExecutedCall] = Field(default_factory=list)
    # As VerifyProposalInput.effects (none for a read-only tool: it makes none, and has no rule).
    effects: list[EarlierEffect] = Field(default_factory=list)


class VerifiedRead(BaseModel):
    verdict: Verdict
    # None when the verdict did not allow the read (rejected, or a person must approve it).
    result: ToolResult | None = None


class ExecuteAndCheckInput(BaseModel):
    """A tool call and then, if it succeeded, the subtask's postconditions on the state it left:
    one activity where the two were two (a check only reads, and the call is exactly once by its
    idempotency key, so a retry of both repeats no effect)."""

    execution: ExecuteToolInput
    # None: the subtask has no postconditions, nothing to check.
    check: CheckPostconditionsInput | None = None


class ExecutedAndChecked(BaseModel):
    result: ToolResult
    # None when nothing was checked: no postconditions, or the call failed.
    check: PostconditionResult | None = None


class RecordStepInput(BaseModel):
    run_id: str
    workspace: str
    step: int
    # commit: checkpoint the workspace; rollback: back to `checkpoint`; none: ledger only.
    action: Literal["commit", "rollback", "none"]
    checkpoint: str
    message: str = ""
    entries: list[LedgerEntry]
    # The step's turn, to store after the subtask's turn `previous` (agent.conversation).
    turn: Turn | None = None
    previous: str | None = None


class RecordStepResult(BaseModel):
    checkpoint: str
    # The stored turn's reference: the subtask's latest turn from now on.
    conversation: str | None = None
    # The workspace and its checkpoint repository as measured after the step's checkpoint or
    # rollback (artifacts not counted: the workflow counts them); None when no git call ran.
    disk: DiskUse | None = None


class RecordThenProposeInput(BaseModel):
    """The last step's record, then the next proposal, in one activity: a step's record rides
    with the model call that follows it (the call needs its turn stored anyway)."""

    record: RecordStepInput | None = None
    # Its `conversation` is the subtask's latest turn before `record`'s, if there is one.
    propose: ProposeActionInput


class RecordedThenProposed(BaseModel):
    recorded: RecordStepResult | None = None
    proposed: ProposeActionResult


class AppendLedgerInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    run_id: str
    entries: list[LedgerEntry]

    @model_validator(mode="after")
    def _one_run(self) -> AppendLedgerInput:
        # Checked where the input is built (workflow code), not after a round trip to a worker.
        check_run_id(self.run_id)
        strays = sorted({entry.run_id for entry in self.entries} - {self.run_id})
        if strays:
            raise ValueError(f"entries of run(s) {strays} in an append to run {self.run_id!r}")
        return self


class AppendLedgerResult(BaseModel):
    appended: int = Field(description="entries written, a ledger_repaired event not counted")
    skipped: int = Field(description="entries whose event id the ledger already held")
    last_seq: int
    # The chain head. Kept in Temporal history, it lets a later check notice a ledger cut short,
    # which a hash chain alone cannot: a truncated chain still verifies.
    last_hash: str
    repaired: str | None = Field(None, description="the quarantine file a torn tail was moved to")
