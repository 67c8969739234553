"""`run_trial`: one trial from its spec to its `TrialRecord`, run under a timeout, then judged
on the real end state and measured."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from agent import ops_world
from agent.postconditions import check
from experiments.config import CRASH_KINDS, FaultKind
from experiments.measure import (
    behaviour,
    duplicate_effects,
    unapproved_effects,
    unsafe_actions_executed,
    verifier_rejections,
)
from experiments.trial_record import TimedCrash, TrialRecord
from experiments.trials.baseline_trial import baseline_timeline, run_baseline
from experiments.trials.counterfactual import fork_trial
from experiments.trials.durable_trial import durable_recovery, run_durable
from experiments.trials.fault_plan import faults_fired, plan_fault, plan_random_crash
from experiments.trials.invariants import trial_invariants
from experiments.trials.outcome import TrialOutcome
from experiments.trials.random_crash import trajectory_of
from experiments.trials.random_time_crash import durable_timeline, plan_timed_crash
from experiments.trials.spec import Lab, TrialSpec, request_for
from experiments.trials.spend import spend_of

TRIAL_TIMEOUT_S = 600.0


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
    fault_index = plan_fault(spec, lab, request.run_id)
    if spec.scenario.kind == FaultKind.RANDOM_CRASH:
        fault_index, crash, why_not = plan_random_crash(spec, lab, request.run_id)
        if crash is None:  # not run: there is nothing to crash it at
            return record.model_copy(update={"valid": False, "invalid_reason": why_not})
        record = record.model_copy(update={"crash": crash})
    timed = None
    if spec.scenario.kind == FaultKind.RANDOM_TIME_CRASH:
        timed, why_not = plan_timed_crash(spec, lab)
        if timed is None:
            return record.model_copy(update={"valid": False, "invalid_reason": why_not})
        record = record.model_copy(update={"timed_crash": timed})
    started = time.monotonic()
    try:
        # asyncio.timeout, not wait_for: on Python 3.11 wait_for drops a cancellation (Ctrl-C)
        # that arrives as the trial ends, and the experiment would go on.
        async with asyncio.timeout(TRIAL_TIMEOUT_S):
            if spec.runtime == "durable":
                outcome = await run_durable(spec, lab, request, timed)
            else:
                outcome = await run_baseline(spec, lab, request, timed)
    except Exception as error:  # the lab failed, not the agent: a failure, shown apart
        return record.model_copy(
            update={
                "infrastructure_error": f"{type(error).__name__}: {error}",
                "wall_time_s": time.monotonic() - started,
            }
        )
    record = record.model_copy(update={"wall_time_s": time.monotonic() - started, "run_ids": outcome.run_ids})
    record = await _measure(record, spec, lab, outcome, fault_index)
    if lab.config.counterfactual is not None and spec.runtime == "durable":
        # After the trial is measured: its figures are its own, the fork's apart.
        record = record.model_copy(
            update={"counterfactual": await fork_trial(spec.task, spec.seed, lab, outcome.result.run_id)}
        )
    return record


async def _measure(
    record: TrialRecord, spec: TrialSpec, lab: Lab, outcome: TrialOutcome, fault_index: int | None
) -> TrialRecord:
    result = outcome.result
    workspace = Path(result.workspace)
    deps = lab.cluster.dependencies
    judged = await check(deps, workspace, spec.task.spec.postconditions, world_id=spec.identity)
    duplicates = 0
    if ops_world.seed_file(spec.task.fixture_dir) is not None:
        duplicates = duplicate_effects(await ops_world.world_state(deps.ops_url, spec.identity))
    fired, recovery = faults_fired(spec, lab, outcome, fault_index)
    if spec.runtime == "durable" and spec.scenario.kind in CRASH_KINDS:
        killed_at = outcome.killed_at if fault_index is None else lab.faults.fired_at(fault_index)
        recovery = await durable_recovery(lab, result.run_id, killed_at)
    # After the run, so reading them costs it nothing: what a random-time crash is placed by.
    if spec.runtime == "durable" and lab.cluster.client is not None:
        started_at, timeline = await durable_timeline(lab.cluster.client.get_workflow_handle(result.run_id))
    else:
        started_at = outcome.process_started_at
        timeline = baseline_timeline(lab, spec, started_at)
    record = record.model_copy(update={"run_started_at": started_at, "model_calls_started_s": timeline})
    if record.timed_crash is not None:
        found = {"fired": outcome.killed_at is not None, "step": outcome.killed_step}
        timed = record.timed_crash.model_copy(update={**found, "effects_in_world": outcome.effects_at_kill})
        record = record.model_copy(update={"timed_crash": timed})
    violations, unchecked = None, ""
    if spec.runtime == "durable" and lab.cluster.client is not None:
        violations, unchecked = await trial_invariants(lab.cluster.client, deps, result.run_id)
    profile = spec.task.spec.profile
    # Judged from the steps, the same way for every arm: neither runtime's account is trusted.
    unapproved = len(await asyncio.to_thread(unapproved_effects, result.steps, workspace, profile))
    configured = set(record.faults_configured)
    missing = sorted(configured - set(fired))
    why = f"configured fault did not fire: {', '.join(missing)}" if missing else ""
    if missing and (timed := record.timed_crash) is not None:
        why = f"the run ended before its crash moment ({_moment(timed)})"
    return record.model_copy(
        update={
            "valid": not missing,
            "invalid_reason": why,
            "success": judged.passed and duplicates == 0 and unapproved == 0,
            "outcome": result.outcome.value,
            "reason": result.reason,
            "judged": judged,
            "steps": len(result.steps),
            "model_calls": result.usage.model_calls + outcome.lost.model_calls,
            "replayed_calls": result.usage.replayed_calls + outcome.lost.replayed_calls,
            "tokens": result.usage.total_tokens + outcome.lost.total_tokens,
            "tokens_wasted": result.wasted.total_tokens + outcome.lost.total_tokens,
            "cost_usd": result.usage.cost_usd + outcome.lost.cost_usd,
            "model_time_s": (result.usage.latency_ms + outcome.lost.latency_ms) / 1000,
            "duplicate_effects": duplicates,
            "unsafe_actions_executed": unsafe_actions_executed(result.steps, workspace, profile),
            "unapproved_effects": unapproved,
            "verifier_rejections": verifier_rejections(result.steps),
            "behaviour": behaviour(result.steps),
            "spend": spend_of(spec.runtime, result, outcome.lost),
            "trajectory": trajectory_of(result.steps),
            "recovery_time_s": recovery,
            "faults_fired": fired,
            "invariant_violations": violations,
            "invariants_unchecked": unchecked,
        }
    )


def _moment(timed: TimedCrash) -> str:
    drawn = f"{timed.at_s:.1f} s of the fault-free {timed.run_s:.1f} s"
    if not timed.anchored:
        return drawn
    return f"{timed.offset_s:.1f} s after its model call {timed.after_model_call}, as {drawn}"
