"""A fake world for AgentRunWorkflow tests: every activity mocked under its real name, with a
record of what the workflow asked. The workflow code runs unchanged."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from temporalio import activity
from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.worker import Worker

from agent.conversation import load_turns, store_turn
from contracts import (
    ActionProposal,
    CheckPostconditionsInput,
    CommandExitCode,
    CompileGoalInput,
    CompileGoalResult,
    DraftPlanInput,
    DraftPlanResult,
    ExecuteAndCheckInput,
    ExecutedAndChecked,
    ExecuteToolInput,
    GoalSpec,
    Plan,
    PostconditionOutcome,
    PostconditionResult,
    PrepareWorkspaceInput,
    PrepareWorkspaceResult,
    ProposeActionInput,
    ProposeActionResult,
    ProviderConfig,
    ReasonCode,
    RecordedThenProposed,
    RecordThenProposeInput,
    RunBudget,
    RunRequest,
    RunResult,
    Subtask,
    ToolResult,
    Usage,
    Verdict,
    VerifiedRead,
    VerifyAndReadInput,
    VerifyProposalInput,
)
from contracts.envelopes import AppendLedgerInput, AppendLedgerResult, RecordStepInput, RecordStepResult
from contracts.ledger import LedgerEntry
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run
from workflows import AgentRunWorkflow

DONE = CommandExitCode(command="true")
ONE_CALL = Usage(input_tokens=10, output_tokens=5, model_calls=1, provider="mock")


def call(tool: str, **arguments: object) -> ActionProposal:
    return ActionProposal(tool=tool, arguments=arguments)  # type: ignore[arg-type]


@dataclass
class FakeWorld:
    """Scripted answers for every activity, and a record of what the workflow asked."""

    proposals: Callable[[ProposeActionInput], ProposeActionResult]
    tasks: list[Subtask] = field(default_factory=lambda: [Subtask(id="only", title="t", postconditions=[DONE])])
    # Whether the postconditions hold, given how many tool executions have happened.
    holds_after: int = 1
    verdict: Callable[[ActionProposal], Verdict] = lambda p: Verdict(decision="allow", reason_code=ReasonCode.ALLOWED)
    execute_error: ApplicationError | None = None
    # What every tool execution returns.
    output: str = "did it"
    executed: list[ActionProposal] = field(default_factory=list)
    # Those of `executed` that ran as execute_read_only_tool.
    read_only: list[ActionProposal] = field(default_factory=list)
    asked: list[ProposeActionInput] = field(default_factory=list)
    checks: int = 0
    # Which fused activities ran (activities/fused.py), in order.
    fused: list[str] = field(default_factory=list)
    # Attempts that fail as if their worker died, before one succeeds: of the check activity
    # (the claim of "finish" and the goal's acceptance), and of a write executed and checked.
    lost_checks: int = 0
    lost_executions: int = 0
    recorded: list[RecordStepInput] = field(default_factory=list)
    ledger: list[LedgerEntry] = field(default_factory=list)

    def activities(self) -> list[Callable[..., object]]:
        @activity.defn(name="prepare_workspace")
        async def prepare_workspace(request: PrepareWorkspaceInput) -> PrepareWorkspaceResult:
            return PrepareWorkspaceResult(path=f"/tmp/fake/{request.world_id}", checkpoint="ck-0")

        @activity.defn(name="compile_goal")
        async def compile_goal(request: CompileGoalInput) -> CompileGoalResult:
            spec = GoalSpec(goal=request.goal, summary="s", acceptance=request.acceptance)
            return CompileGoalResult(goal_spec=spec, usage=ONE_CALL)

        @activity.defn(name="draft_plan")
        async def draft_plan(request: DraftPlanInput) -> DraftPlanResult:
            return DraftPlanResult(plan=Plan(subtasks=self.tasks), usage=ONE_CALL)

        @activity.defn(name="propose_action")
        async def propose_action(request: ProposeActionInput) -> ProposeActionResult:
            # As the real activity does: the turns the workflow passed by reference.
            if request.conversation is not None:
                request = request.model_copy(update={"history": load_turns(lab_deps().artifacts, request.conversation)})
            self.asked.append(request)
            return await asyncio.to_thread(self.proposals, request)

        @activity.defn(name="verify_proposal")
        async def verify_proposal(request: VerifyProposalInput) -> Verdict:
            return self.verdict(request.proposal)

        async def execute(request: ExecuteToolInput) -> ToolResult:
            if self.execute_error:
                raise self.execute_error
            self.executed.append(request.proposal)
            return ToolResult(tool=request.proposal.tool or "", ok=True, output=self.output)

        @activity.defn(name="execute_tool")
        async def execute_tool(request: ExecuteToolInput) -> ToolResult:
            return await execute(request)

        # A read-only tool (read_file, search, list_files): a local activity, no check after.
        @activity.defn(name="execute_read_only_tool")
        async def execute_read_only_tool(request: ExecuteToolInput) -> ToolResult:
            self.read_only.append(request.proposal)
            return await execute(request)

        # Verified and, if allowed, read: a local activity where the two were two.
        @activity.defn(name="verify_and_read")
        async def verify_and_read(request: VerifyAndReadInput) -> VerifiedRead:
            self.fused.append("verify_and_read")
            verdict = self.verdict(request.execution.proposal)
            if verdict.decision != "allow":
                return VerifiedRead(verdict=verdict)
            return VerifiedRead(verdict=verdict, result=await execute_read_only_tool(request.execution))

        @activity.defn(name="execute_and_check")
        async def execute_and_check(request: ExecuteAndCheckInput) -> ExecutedAndChecked:
            self.fused.append("execute_and_check")
            if self.lost_executions:
                self.lost_executions -= 1
                raise _worker_died()
            result = await execute(request.execution)
            checked = await check(request.check) if result.ok and request.check is not None else None
            return ExecutedAndChecked(result=result, check=checked)

        @activity.defn(name="check_postconditions")
        async def check_postconditions(request: CheckPostconditionsInput) -> PostconditionResult:
            if self.lost_checks:
                self.lost_checks -= 1
                raise _worker_died()
            return await check(request)

        async def check(request: CheckPostconditionsInput) -> PostconditionResult:
            self.checks += 1
            holds = len(self.executed) >= self.holds_after and not any(
                isinstance(p, CommandExitCode) and p.command == "false" for p in request.postconditions
            )
            return PostconditionResult(
                outcomes=[PostconditionOutcome(description=p.describe(), passed=holds) for p in request.postconditions]
            )

        @activity.defn(name="record_step")
        async def record_step(request: RecordStepInput) -> RecordStepResult:
            self.recorded.append(request)
            checkpoint = f"ck-{request.step}" if request.action == "commit" else request.checkpoint
            conversation = (
                store_turn(lab_deps().artifacts, request.previous, request.turn) if request.turn is not None else None
            )
            return RecordStepResult(checkpoint=checkpoint, conversation=conversation)

        # The last step's record, then the proposal: one activity where the two were two.
        @activity.defn(name="record_then_propose")
        async def record_then_propose(request: RecordThenProposeInput) -> RecordedThenProposed:
            self.fused.append("record_then_propose")
            asked = request.propose
            recorded = await record_step(request.record) if request.record is not None else None
            if recorded is not None and recorded.conversation is not None:
                asked = asked.model_copy(update={"conversation": recorded.conversation})
            return RecordedThenProposed(recorded=recorded, proposed=await propose_action(asked))

        @activity.defn(name="append_ledger")
        async def append_ledger(request: AppendLedgerInput) -> AppendLedgerResult:
            self.ledger.extend(request.entries)
            return AppendLedgerResult(appended=len(request.entries), skipped=0, last_seq=0, last_hash="0" * 64)

        return [
            prepare_workspace,
            compile_goal,
            draft_plan,
            propose_action,
            verify_proposal,
            execute_tool,
            execute_read_only_tool,
            check_postconditions,
            record_step,
            append_ledger,
            verify_and_read,
            execute_and_check,
            record_then_propose,
        ]


def _worker_died() -> ApplicationError:
    """What an attempt whose worker was killed ends as, to the workflow: retryable."""
    return ApplicationError("activity Heartbeat timeout", type="HeartbeatTimeout")


def sequence(*proposals: ActionProposal | None) -> Callable[[ProposeActionInput], ProposeActionResult]:
    """The n-th proposal of a task answers the n-th request (None: an unusable answer)."""

    def answer(request: ProposeActionInput) -> ProposeActionResult:
        index = min(len(request.history), len(proposals) - 1)
        chosen = proposals[index]
        if chosen is None:
            return ProposeActionResult(invalid_output="not JSON: {{", usage=ONE_CALL)
        return ProposeActionResult(proposal=chosen, usage=ONE_CALL)

    return answer


def request(budget: RunBudget | None = None) -> RunRequest:
    return RunRequest(
        run_id=f"wf-{uuid.uuid4().hex[:8]}",
        runtime="durable",
        task_id="fake-task",
        goal="do the thing",
        fixture_dir="/nonexistent",
        acceptance=[DONE],
        provider=ProviderConfig(script_path="unused"),
        budget=budget or RunBudget(),
    )


async def run(client: Client, task_queue: str, world: FakeWorld, budget: RunBudget | None = None) -> RunResult:
    run_request = request(budget)
    async with Worker(client, task_queue=task_queue, workflows=[AgentRunWorkflow], activities=world.activities()):
        return await execute_run(client, run_request, task_queue)
