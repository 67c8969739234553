"""One trial: a task, a runtime, a fault scenario, a seed, in a world of its own; run with real
processes, then measured on the real end state.

Durable: a workflow on the cluster's dev server, run by worker processes that faults may kill
(another worker takes over). Baseline: the loop in a process of its own
(`experiments.baseline_process`); killed, it is run again on the same trial, as a user would.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.service import RPCError

from agent import ops_world
from agent.faults import FaultPlan, FaultPoint, FaultSpec, fired_at
from agent.postconditions import check
from agent.providers.noisy import read_injected
from contracts import TASK_QUEUE, Approve, ProviderConfig, RunRequest, RunResult, Usage
from contracts.experiment import ExperimentConfig, ExperimentRuntime, FaultKind, FaultScenario, TrialRecord
from experiments.baseline_process import read_journal
from experiments.harness import LabCluster
from experiments.measure import duplicate_effects, unsafe_actions_executed, verifier_rejections
from lab.catalog import Task
from lab.child_process import die_with_parent
from lab.run_request import build_request
from settings import PROJECT_ROOT
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

TRIAL_TIMEOUT_S = 600.0
# A user reruns a crashed baseline at once, at most this many times.
BASELINE_ATTEMPTS = 3
_KILLED = -9


@dataclass(frozen=True)
class TrialSpec:
    experiment_id: str
    task: Task
    runtime: ExperimentRuntime
    scenario: FaultScenario
    index: int
    seed: int

    @property
    def trial_id(self) -> str:
        runtime = self.runtime.replace("+", "-")
        return f"{self.experiment_id}-{self.task.spec.id}-{runtime}-{self.scenario.name}-{self.index}"


class FaultBook:
    """The experiment's fault plan, shared by every process through AGENT_LAB_FAULT_PLAN. Each
    trial appends its faults, bound to its run id, and later asks whether they fired."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._faults: list[FaultSpec] = []
        FaultPlan(faults=[]).save(path)

    def add(self, fault: FaultSpec) -> int:
        self._faults.append(fault)
        FaultPlan(faults=self._faults).save(self.path)
        return len(self._faults) - 1

    def fired_at(self, index: int) -> float | None:
        return fired_at(self.path, index)


@dataclass
class Lab:
    """What every trial shares: the cluster, the fault book, the provider, the scratch space."""

    cluster: LabCluster
    faults: FaultBook
    provider: ProviderConfig
    config: ExperimentConfig
    scratch: Path


def request_for(spec: TrialSpec, lab: Lab) -> RunRequest:
    provider = lab.provider.model_copy(update={"seed": spec.seed})
    if provider.kind == "scripted":
        provider = provider.model_copy(update={"script_path": str(spec.task.require_script())})
    if spec.scenario.kind == FaultKind.MODEL_NOISE and spec.scenario.noise is not None:
        provider = provider.model_copy(update={"noise": spec.scenario.noise.model_copy(update={"seed": spec.seed})})
    runtime = "durable" if spec.runtime == "durable" else "baseline"
    request = build_request(spec.task, runtime, trial_id=spec.trial_id, provider=provider)
    run_id = spec.trial_id if runtime == "durable" else f"{spec.trial_id}-a1"
    updates: dict[str, object] = {"run_id": run_id, "baseline_verifies": spec.runtime == "baseline+verifier"}
    if lab.config.budget is not None:
        updates["budget"] = lab.config.budget
    return request.model_copy(update=updates)


async def run_trial(spec: TrialSpec, lab: Lab) -> TrialRecord:
    record = TrialRecord(
        experiment_id=spec.experiment_id,
        trial_id=spec.trial_id,
        task_id=spec.task.spec.id,
        task_tags=spec.task.spec.tags,
        runtime=spec.runtime,
        scenario=spec.scenario.name,
        fault_kind=spec.scenario.kind,
        trial_index=spec.index,
        seed=spec.seed,
        faults_configured=[] if spec.scenario.kind == FaultKind.NONE else [spec.scenario.kind.value],
    )
    request = request_for(spec, lab)
    fault_index = _plan_fault(spec, lab, request.run_id)
    started = time.monotonic()
    try:
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a cancellation (Ctrl-C)
        # that arrives as the trial ends, and the experiment would go on.
        async with asyncio.timeout(TRIAL_TIMEOUT_S):
            if spec.runtime == "durable":
                outcome = await _durable(spec, lab, request)
            else:
                outcome = await _baseline(spec, lab, request, fault_index)
    except Exception as error:  # the lab failed, not the agent: a failure, shown apart
        return record.model_copy(
            update={
                "infrastructure_error": f"{type(error).__name__}: {error}",
                "wall_time_s": time.monotonic() - started,
            }
        )
    record = record.model_copy(update={"wall_time_s": time.monotonic() - started, "run_ids": outcome.run_ids})
    return await _measure(record, spec, lab, outcome, fault_index)


@dataclass
class _Outcome:
    result: RunResult
    run_ids: list[str]
    # What attempts lost to a crash had spent (the baseline's), and when the run got back to
    # where it was when it died.
    lost: Usage
    resumed_at: float | None = None
    server_restarted_at: float | None = None


def _plan_fault(spec: TrialSpec, lab: Lab, run_id: str) -> int | None:
    scenario = spec.scenario
    if scenario.kind not in (FaultKind.KILL, FaultKind.TOOL_ERROR, FaultKind.TOOL_TIMEOUT):
        return None
    action = {FaultKind.KILL: "kill", FaultKind.TOOL_ERROR: "transient_error", FaultKind.TOOL_TIMEOUT: "timeout"}
    fault = FaultSpec(
        point=FaultPoint(scenario.point),
        action=action[scenario.kind],  # type: ignore[arg-type]
        run_id=run_id,
        step=scenario.step,
        tool=scenario.tool,
        delay_s=0,
    )
    return lab.faults.add(fault)


async def _durable(spec: TrialSpec, lab: Lab, request: RunRequest) -> _Outcome:
    client = lab.cluster.client
    if client is None:
        raise RuntimeError("the cluster has no client")
    handle = await client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=TASK_QUEUE)
    approver = asyncio.create_task(_approve_what_waits(handle))
    try:
        restarted_at = None
        if spec.scenario.kind == FaultKind.SERVER_RESTART:
            while (await handle.query(AgentRunWorkflow.progress, 1_000_000)).step < spec.scenario.after_step:
                await asyncio.sleep(0.05)
            restarted_at = time.time()
            await lab.cluster.restart_server()
        result = await run_result(handle)
    finally:
        approver.cancel()
    return _Outcome(result=result, run_ids=[request.run_id], lost=Usage(), server_restarted_at=restarted_at)


async def _approve_what_waits(handle: WorkflowHandle[AgentRunWorkflow, RunResult]) -> None:
    """The experiment's person: approves each proposal the run waits on, once it is asked."""
    while True:
        await asyncio.sleep(0.2)
        try:
            progress = await handle.query(AgentRunWorkflow.progress, 1_000_000)
            if progress.pending_approval is not None:
                digest = progress.pending_approval.arguments_sha256
                await handle.execute_update(
                    AgentRunWorkflow.approve, Approve(approver="experiment", arguments_sha256=digest)
                )
        except (RPCError, WorkflowUpdateFailedError):
            continue  # the server restarting, or the run moved on meanwhile


async def _baseline(spec: TrialSpec, lab: Lab, request: RunRequest, fault_index: int | None) -> _Outcome:
    lost = Usage()
    run_ids: list[str] = []
    killed_steps = 0
    resumed_at = None
    for attempt in range(1, BASELINE_ATTEMPTS + 1):
        attempt_request = request.model_copy(update={"run_id": f"{spec.trial_id}-a{attempt}"})
        run_ids.append(attempt_request.run_id)
        files = lab.scratch / attempt_request.run_id
        files.mkdir(parents=True, exist_ok=True)
        (files / "request.json").write_text(attempt_request.model_dump_json())
        code = await _run_process(
            [
                sys.executable,
                "-m",
                "experiments.baseline_process",
                *(str(files / n) for n in ("request.json", "result.json", "journal.jsonl")),
            ],
            lab.cluster.env(lab.faults.path),
        )
        journal = read_journal(files / "journal.jsonl")
        if code == _KILLED:
            for line in journal:
                lost += line.record.usage
            killed_steps = len(journal)
            continue
        if code != 0:
            # Kept under the report's logs/ when the experiment ends (experiments.runner).
            raise RuntimeError(f"the baseline process exited {code}; its files: logs/{files.name}")
        if attempt > 1:
            # Back where the crash left it: the rerun's step that matches the lost run's last.
            caught_up = [line.time for line in journal if line.record.step >= max(killed_steps, 1)]
            resumed_at = caught_up[0] if caught_up else None
        result = RunResult.model_validate_json((files / "result.json").read_text())
        return _Outcome(result=result, run_ids=run_ids, lost=lost, resumed_at=resumed_at)
    raise RuntimeError(f"the baseline was killed on every one of {BASELINE_ATTEMPTS} attempts")


async def _run_process(command: list[str], env: dict[str, str]) -> int:
    process = await asyncio.create_subprocess_exec(
        *command,
        cwd=PROJECT_ROOT,
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
        preexec_fn=die_with_parent,
    )
    try:
        return await process.wait()
    finally:
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


async def _measure(
    record: TrialRecord, spec: TrialSpec, lab: Lab, outcome: _Outcome, fault_index: int | None
) -> TrialRecord:
    result = outcome.result
    workspace = Path(result.workspace)
    judged = await check(workspace, spec.task.spec.postconditions, world_id=spec.trial_id)
    duplicates = 0
    if ops_world.seed_file(spec.task.fixture_dir) is not None:
        duplicates = duplicate_effects(await ops_world.world_state(spec.trial_id))
    fired, recovery = _fired(spec, lab, outcome, fault_index)
    if spec.runtime == "durable" and spec.scenario.kind == FaultKind.KILL:
        recovery = await _durable_recovery(lab, result.run_id, fault_index)
    configured = set(record.faults_configured)
    missing = sorted(configured - set(fired))
    return record.model_copy(
        update={
            "valid": not missing,
            "invalid_reason": f"configured fault did not fire: {', '.join(missing)}" if missing else "",
            "success": judged.passed and duplicates == 0,
            "outcome": result.outcome.value,
            "reason": result.reason,
            "judged": judged,
            "steps": len(result.steps),
            "model_calls": result.usage.model_calls + outcome.lost.model_calls,
            "tokens": result.usage.total_tokens + outcome.lost.total_tokens,
            "tokens_wasted": result.wasted.total_tokens + outcome.lost.total_tokens,
            "cost_usd": result.usage.cost_usd + outcome.lost.cost_usd,
            "model_time_s": (result.usage.latency_ms + outcome.lost.latency_ms) / 1000,
            "duplicate_effects": duplicates,
            "unsafe_actions_executed": unsafe_actions_executed(result.steps, workspace, spec.task.spec.profile),
            "verifier_rejections": verifier_rejections(result.steps),
            "recovery_time_s": recovery,
            "faults_fired": fired,
        }
    )


def _fired(spec: TrialSpec, lab: Lab, outcome: _Outcome, fault_index: int | None) -> tuple[list[str], float | None]:
    kind = spec.scenario.kind
    if kind == FaultKind.NONE:
        return [], None
    if kind == FaultKind.MODEL_NOISE:
        injected = [fault for run_id in outcome.run_ids for fault in read_injected(run_id)]
        return ([kind.value] if injected else []), None
    if kind == FaultKind.SERVER_RESTART:
        return ([kind.value] if outcome.server_restarted_at else []), None
    killed_at = lab.faults.fired_at(fault_index) if fault_index is not None else None
    if killed_at is None:
        return [], None
    recovery = outcome.resumed_at - killed_at if outcome.resumed_at else None
    return [kind.value], recovery


async def _durable_recovery(lab: Lab, run_id: str, fault_index: int | None) -> float | None:
    """From the kill to the retried activity starting on another worker."""
    killed_at = lab.faults.fired_at(fault_index) if fault_index is not None else None
    if killed_at is None or lab.cluster.client is None:
        return None
    async for event in lab.cluster.client.get_workflow_handle(run_id).fetch_history_events():
        if event.event_type != EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
            continue
        when = event.event_time.ToDatetime().timestamp()
        if event.activity_task_started_event_attributes.attempt > 1 and when > killed_at:
            return when - killed_at
    return None
