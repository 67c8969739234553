"""Typed contracts shared by workflows, activities, the baseline loop and the starter.

Pure data: importing this package does no I/O, so workflow code may import it.
"""

from contracts.actions import (
    ActionProposal,
    ArtifactRef,
    Decision,
    ReasonCode,
    RiskLevel,
    ToolResult,
    ToolSpec,
    Verdict,
)
from contracts.activity_inputs import (
    CheckPostconditionsInput,
    ExecuteToolInput,
    PrepareWorkspaceInput,
    VerifyInput,
    WorkspaceRef,
)
from contracts.approval import ApprovalDecision, Approve, Deny, PendingApproval, proposal_digest
from contracts.budget import RunBudget
from contracts.experiment import (
    ExperimentConfig,
    ExperimentRuntime,
    FaultKind,
    FaultScenario,
    ProviderSpec,
    TrialRecord,
)
from contracts.goal import GoalCompilation, GoalInterpretation, GoalSpec
from contracts.ledger import EventType, LedgerEntry, LedgerEvent
from contracts.plan import Plan, PlanResult, PlanTask
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
from contracts.provider import (
    CompileGoalRequest,
    NoiseConfig,
    PlanRequest,
    Price,
    ProposalRequest,
    ProposalResult,
    ProviderConfig,
    Turn,
)
from contracts.queues import TASK_QUEUE
from contracts.run import RunCarry, RunProgress, RunRequest, RunResult, Runtime, StepRecord
from contracts.run_state import TERMINAL_STATES, RunState
from contracts.sandbox import SandboxReport
from contracts.script import Script, ScriptedTask, ScriptInvalid, parse_script
from contracts.task import TaskSpec
from contracts.usage import Usage

__all__ = [
    "TASK_QUEUE",
    "TERMINAL_STATES",
    "ActionProposal",
    "ApprovalDecision",
    "Approve",
    "ArtifactRef",
    "CheckPostconditionsInput",
    "CommandExitCode",
    "CompileGoalRequest",
    "Decision",
    "Deny",
    "EventType",
    "ExecuteToolInput",
    "ExperimentConfig",
    "ExperimentRuntime",
    "FaultKind",
    "FaultScenario",
    "FileContains",
    "FileNotContains",
    "GoalCompilation",
    "GoalInterpretation",
    "GoalSpec",
    "LedgerEntry",
    "LedgerEvent",
    "NoiseConfig",
    "PendingApproval",
    "Plan",
    "PlanRequest",
    "PlanResult",
    "PlanTask",
    "PolicyProfile",
    "Postcondition",
    "PostconditionOutcome",
    "PostconditionResult",
    "PrepareWorkspaceInput",
    "Price",
    "ProposalRequest",
    "ProposalResult",
    "ProviderConfig",
    "ProviderSpec",
    "ReasonCode",
    "RiskLevel",
    "RunBudget",
    "RunCarry",
    "RunProgress",
    "RunRequest",
    "RunResult",
    "RunState",
    "Runtime",
    "SandboxReport",
    "Script",
    "ScriptInvalid",
    "ScriptedTask",
    "ServiceCount",
    "StepRecord",
    "TaskSpec",
    "ToolResult",
    "ToolSpec",
    "TrialRecord",
    "Turn",
    "Usage",
    "Verdict",
    "VerifyInput",
    "WorkspaceRef",
    "parse_script",
    "proposal_digest",
]
