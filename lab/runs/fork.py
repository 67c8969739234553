"""Forking a recorded durable run after its step K: the request of a new run that starts with
the parent's state after step K and goes on live from step K+1 (workflows/fork_start.py).

What the fork takes from the parent, and from where:
- its request (task, goal, budget, policy), from the parent's workflow history;
- its state after step K, from its final state (the `progress` query) cut at K: the steps,
  the plan and its position in it, the subtask's turns so far, the calls already run (the
  repeated-action check), the approvals given, the usage of steps 1..K;
- the checkpoint its workspace starts from, from the parent's ledger (the commit or rollback
  that closed step K; the fork's own `forked` event for a fork of a fork);
- for a run that acted on the operations service, the keys of the effects it made in steps
  1..K, from its ledger's tool results: the service makes the fork's world from the parent's
  with those effects copied in (ops_service/forks.py).
"""

from __future__ import annotations

import re
import uuid
from pathlib import Path

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.service import RPCError, RPCStatusCode

from agent import checkpoints, ops_world
from agent.dependencies import Dependencies
from agent.ledger.store import LedgerStore
from agent.tools.registry import TOOLS
from contracts import (
    ForkOrigin,
    ProviderConfig,
    RunRequest,
    RunSnapshot,
    RunState,
    StepRecord,
    SubtaskProgress,
    ToolResult,
    Turn,
    Usage,
)
from contracts.counts import steps_through
from contracts.errors import StarterError
from lab.runs.baseline_runs import baseline_has_no_history
from lab.runs.run_ledger import read_ledger
from settings import project_path
from workflows import AgentRunWorkflow

_HOLD = re.compile(r"^(\d+)/(\d+) postconditions hold")


async def fork_request(
    client: Client, deps: Dependencies, parent_id: str, from_step: int, provider: ProviderConfig | None
) -> RunRequest:
    """The forked run's request. Raises StarterError (one line) for a run that does not exist,
    is still going, was not durable, has no step `from_step`, or whose checkpoints are gone.
    Needs a worker polling the task queue: the parent's final state is a query. `deps`: the
    workers' data directory, where the parent's ledger and checkpoints are."""
    handle = client.get_workflow_handle(parent_id)
    try:
        described = await handle.describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            said = baseline_has_no_history(parent_id, deps.ledgers)
            raise StarterError(said or f"no run {parent_id!r} on this Temporal server") from None
        raise
    if described.workflow_type != "AgentRunWorkflow":
        raise StarterError(f"{parent_id!r} is a {described.workflow_type} workflow, not an agent run")
    if described.status == WorkflowExecutionStatus.RUNNING:
        raise StarterError(f"run {parent_id!r} is still going: fork it once it has ended")
    parent = await _request_of(client, parent_id)
    if parent.parallel_subtasks or parent.subtask is not None:
        raise StarterError(
            f"run {parent_id!r} ran its plan's subtasks as child runs (--parallel-subtasks): its steps are its "
            "children's, and forking such a run is not supported; fork a child, or a run made one subtask at a time"
        )
    final = await handle.query(AgentRunWorkflow.progress)
    if not 0 <= from_step <= len(final.steps):
        raise StarterError(
            f"run {parent_id!r} has {steps_through(len(final.steps))}: there is no step {from_step} to fork after"
        )
    checkpoint = checkpoint_after(deps.ledgers, parent_id, from_step)
    # The ledger was read here, so this machine has the workers' data directory.
    # Their checkpoints: a fork is made where its parent's workspace was kept.
    kept = deps.checkpoints
    if not checkpoints.repository(kept, project_path(final.workspace)).is_dir():
        raise StarterError(
            f"run {parent_id!r}'s checkpoints are gone ({checkpoints.repository(kept, Path(final.workspace))})"
        )
    origin = ForkOrigin(
        parent_run_id=parent_id, from_step=from_step, parent_workspace=final.workspace, checkpoint=checkpoint
    )
    if ops_world.seed_file(project_path(parent.fixture_dir)) is not None:
        # Its world as the parent left it after step K: made by the service from the parent's
        # (workflows/fork_start.py), with the effects of steps 1..K copied, none made again.
        origin.parent_world_id = parent.world_id
        origin.effect_keys = effect_keys_through(deps.ledgers, parent_id, from_step)
    return parent.model_copy(
        update={
            "run_id": f"{parent_id}-k{from_step}-{uuid.uuid4().hex[:6]}",
            "trial_id": None,
            "provider": provider or parent.provider,
            "resume": snapshot_after(final, from_step, _step_ends_subtask(final, from_step)),
            "fork": origin,
            "search_attributes": False,
        }
    )


async def _request_of(client: Client, run_id: str) -> RunRequest:
    async for event in client.get_workflow_handle(run_id).fetch_history_events():
        payloads = event.workflow_execution_started_event_attributes.input.payloads
        [request] = await client.data_converter.decode(payloads, [RunRequest])
        return request
    raise StarterError(f"run {run_id!r} has no history")


def checkpoint_after(ledgers: LedgerStore, run_id: str, step: int) -> str:
    """The run's checkpoint once step `step` was closed, from its ledger."""
    events = read_ledger(ledgers, run_id)
    found: str | None = None
    for event in events:
        at = event.payload.get("checkpoint")
        if not isinstance(at, str):
            continue
        if event.type in ("run_started", "forked") or (
            event.type in ("commit", "rollback") and event.step is not None and event.step <= step
        ):
            found = at
        if event.type == "forked" and isinstance(parent := event.payload.get("parent"), str):
            from_step = event.payload.get("from_step")
            if isinstance(from_step, int) and step < from_step:
                return checkpoint_after(ledgers, parent, step)
    if found is None:
        raise StarterError(f"run {run_id!r}'s ledger names no checkpoint at or before step {step}")
    return found


def effect_keys_through(ledgers: LedgerStore, run_id: str, step: int) -> list[str]:
    """The idempotency keys of the external effects the run made in its steps 1..`step`, from
    its ledger (a fork's steps before its own first are its parent's), in the order made."""
    keys: list[str] = []
    for event in read_ledger(ledgers, run_id):
        if event.type == "forked" and isinstance(parent := event.payload.get("parent"), str):
            from_step = event.payload.get("from_step")
            if isinstance(from_step, int):
                keys += effect_keys_through(ledgers, parent, min(step, from_step))
        elif event.type == "tool_result" and event.step is not None and event.step <= step:
            result = ToolResult.model_validate(event.payload.get("result"))
            tool = TOOLS.get(result.tool)
            if result.ok and result.idempotency_key and tool is not None and tool.external_effects:
                keys.append(result.idempotency_key)
    return list(dict.fromkeys(keys))


def _step_ends_subtask(final: RunSnapshot, k: int) -> bool:
    """Whether step k ended its subtask: the parent's next step is another subtask's, or, for its
    last step, it was committed with every postcondition holding."""
    if k == 0:
        return False
    step = final.steps[k - 1]
    if k < len(final.steps):
        return final.steps[k].subtask_id != step.subtask_id
    held = _HOLD.match(step.postconditions)
    checked = (held is not None and held[1] == held[2]) or step.postconditions == "no postconditions"
    return step.outcome == "committed" and checked


def snapshot_after(final: RunSnapshot, k: int, subtask_ended: bool) -> RunSnapshot:
    """The parent's state as it was once step k was closed (between two steps), from its final
    state: what the workflow carries into the fork (`RunRequest.resume`)."""
    steps = final.steps[:k]
    ids = [subtask.id for subtask in final.plan.subtasks] if final.plan else []
    if k == 0:
        index, state = 0, RunState.PLANNING
    else:
        last = steps[-1]
        index = ids.index(last.subtask_id) + (1 if subtask_ended else 0)
        state = RunState.COMMITTED if last.outcome == "committed" else RunState.REJECTED
    subtask_id = ids[index] if index < len(ids) else None
    in_subtask = [] if subtask_ended or k == 0 else [step for step in steps if step.subtask_id == subtask_id]
    subtask = SubtaskProgress(
        id=subtask_id,
        index=index,
        turns=_turns(final, in_subtask),
        usage=sum((step.usage for step in in_subtask), Usage()),
    )
    return RunSnapshot(
        state=state,
        step=k,
        subtask=subtask,
        sandbox=final.sandbox,
        goal_spec=final.goal_spec,
        plan=final.plan,
        steps=steps,
        usage=sum((step.usage for step in steps), Usage()),
        wasted=sum((step.usage for step in steps if step.outcome == "rejected"), Usage()),
        approvals=[approval for approval in final.approvals if approval.step <= k],
        executed=[call for call in final.executed if call.step <= k],
        # Copied into the fork's world (POST /fork): they count toward its approval limits.
        effects=[effect for effect in final.effects if effect.step <= k],
        workspace_files=final.workspace_files,
    )


def _turns(final: RunSnapshot, steps: list[StepRecord]) -> list[Turn]:
    """The model's turns for `steps`: the parent's own where it still holds them (its last
    task's), else rebuilt from the step records (what was said of a committed step is then
    its result and check, not the parent's exact words)."""
    kept = {turn.step: turn for turn in final.subtask.turns}
    return [kept.get(step.step) or _turn(step) for step in steps]


def _turn(step: StepRecord) -> Turn:
    said = step.reason or "; ".join(filter(None, [step.result, step.postconditions])) or step.outcome
    return Turn(step=step.step, proposal=step.proposal, outcome=step.outcome, feedback=said)


__all__ = ["checkpoint_after", "effect_keys_through", "fork_request", "snapshot_after"]
