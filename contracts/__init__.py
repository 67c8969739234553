"""Typed contracts shared by workflows, activities, the baseline loop and the starter.

Pure data: importing this package does no I/O, so workflow code may import it.
"""

from contracts.actions import (
    ActionProposal,
    ArtifactRef,
    Decision,
    ExecutedCall,
    ReasonCode,
    ResourceLimit,
    RiskLevel,
    ToolResult,
    ToolSpec,
    Verdict,
)
from contracts.approval import ApprovalDecision, Approve, Deny, PendingApproval, proposal_digest
from contracts.budget import RunBudget
from contracts.envelopes import (
    AppendLedgerInput,
    AppendLedgerResult,
    CheckPostconditionsInput,
    CompileGoalInput,
    CompileGoalResult,
    DraftPlanInput,
    DraftPlanResult,
    ExecuteAndCheckInput,
    ExecutedAndChecked,
    ExecuteToolInput,
    PrepareWorkspaceInput,
    PrepareWorkspaceResult,
    ProposeActionInput,
    ProposeActionResult,
    RecordedThenProposed,
    RecordStepInput,
    RecordStepResult,
    RecordThenProposeInput,
    VerifiedRead,
    VerifyAndReadInput,
    VerifyProposalInput,
)
from contracts.experiment import (
    ExperimentConfig,
    ExperimentRuntime,
    FaultKind,
    FaultScenario,
    ProviderSpec,
    TrialBehaviour,
    TrialRecord,
)
from contracts.goal import GoalInterpretation, GoalSpec
from contracts.ledger import EventType, LedgerEntry, LedgerEvent
from contracts.plan import Plan, PlanTask
from contracts.policy import PolicyProfile
from contracts.postconditions import (
    CommandExitCode,
    FileContains,
    FileNotContains,
    Postcondition,
    PostconditionOutcome,
    PostconditionResult,
    ServiceCount,
)
from contracts.provider import NoiseConfig, Price, ProviderConfig, Turn
from contracts.queues import TASK_QUEUE
from contracts.run import RunRequest, RunResult, RunSnapshot, Runtime, StepRecord
from contracts.run_state import TERMINAL_STATES, RunState
from contracts.sandbox import SandboxReport
from contracts.script import Script, ScriptedTask, parse_script
from contracts.task import TaskSpec
from contracts.usage import ModelCallTiming, Usage

__all__ = [
    "TASK_QUEUE",
    "TERMINAL_STATES",
    "ActionProposal",
    "AppendLedgerInput",
    "AppendLedgerResult",
    "ApprovalDecision",
    "Approve",
    "ArtifactRef",
    "CheckPostconditionsInput",
    "CommandExitCode",
    "CompileGoalInput",
    "CompileGoalResult",
    "Decision",
    "Deny",
    "DraftPlanInput",
    "DraftPlanResult",
    "EventType",
    "ExecuteAndCheckInput",
    "ExecuteToolInput",
    "ExecutedAndChecked",
    "ExecutedCall",
    "ExperimentConfig",
    "ExperimentRuntime",
    "FaultKind",
    "FaultScenario",
    "FileContains",
    "FileNotContains",
    "GoalInterpretation",
    "GoalSpec",
    "LedgerEntry",
    "LedgerEvent",
    "ModelCallTiming",
    "NoiseConfig",
    "PendingApproval",
    "Plan",
    "PlanTask",
    "PolicyProfile",
    "Postcondition",
    "PostconditionOutcome",
    "PostconditionResult",
    "PrepareWorkspaceInput",
    "PrepareWorkspaceResult",
    "Price",
    "ProposeActionInput",
    "ProposeActionResult",
    "ProviderConfig",
    "ProviderSpec",
    "ReasonCode",
    "RecordStepInput",
    "RecordStepResult",
    "RecordThenProposeInput",
    "RecordedThenProposed",
    "ResourceLimit",
    "RiskLevel",
    "RunBudget",
    "RunRequest",
    "RunResult",
    "RunSnapshot",
    "RunState",
    "Runtime",
    "SandboxReport",
    "Script",
    "ScriptedTask",
    "ServiceCount",
    "StepRecord",
    "TaskSpec",
    "ToolResult",
    "ToolSpec",
    "TrialBehaviour",
    "TrialRecord",
    "Turn",
    "Usage",
    "Verdict",
    "VerifiedRead",
    "VerifyAndReadInput",
    "VerifyProposalInput",
    "parse_script",
    "proposal_digest",
]
