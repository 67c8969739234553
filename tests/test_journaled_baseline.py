"""The journaled baseline (`baseline-journal`): the plain loop under one run id with a journal of
its calls. SIGKILLed just after its refund went out and run again, it reads back what the killed
attempt completed (no step's model call made twice, the refund once), where the naive baseline,
rerun under a new run id, asks the model for every step again and refunds twice."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest
from pydantic import TypeAdapter

from baseline import StepJournal
from contracts import ProviderConfig, Usage
from experiments.baseline_process import read_calls
from experiments.config import ExperimentConfig, ExperimentRuntime, FaultKind, FaultScenario
from experiments.harness import LabCluster
from experiments.trials.baseline_trial import run_baseline
from experiments.trials.fault_plan import FaultBook, plan_fault
from experiments.trials.spec import Lab, TrialSpec, request_for
from lab.runs.catalog import load_task

pytestmark = pytest.mark.timeout(240)

USAGE = TypeAdapter(Usage)


async def test_a_journal_reads_back_what_it_recorded_and_makes_the_rest(tmp_path: Path) -> None:
    path, made = tmp_path / "journal.jsonl", []

    async def call(tokens: int) -> Usage:
        made.append(tokens)
        return Usage(model_calls=1, input_tokens=tokens)

    first = StepJournal(path)
    assert await first.once(1, "model", USAGE, lambda: call(10)) == Usage(model_calls=1, input_tokens=10)
    await first.once(2, "model", USAGE, lambda: call(20))
    with path.open("a") as out:
        out.write('{"step": 3, "call": "mo')  # torn by a kill as it was written

    rerun = StepJournal(path)
    assert rerun.replayable == 2 and rerun.holds(1, "model") and not rerun.holds(3, "model")
    assert (await rerun.once(1, "model", USAGE, lambda: call(99))).total_tokens == 10
    assert (await rerun.once(2, "model", USAGE, lambda: call(99))).total_tokens == 20
    assert (await rerun.once(3, "model", USAGE, lambda: call(30))).total_tokens == 30
    assert made == [10, 20, 30]  # each call made once, across both attempts


@pytest.fixture
async def cluster(tmp_path: Path) -> AsyncIterator[LabCluster]:
    async with LabCluster(tmp_path / "cluster") as running:
        yield running


async def _killed_after_the_refund(cluster: LabCluster, tmp_path: Path, runtime: ExperimentRuntime) -> dict:
    """One trial of `runtime` whose process is killed just after its refund, run as an
    experiment runs it (experiments.trials.baseline_trial); what it did, attempt by attempt."""
    kill = FaultScenario(name="kill", kind=FaultKind.KILL, point="after_effect", tool="issue_refund")
    config = ExperimentConfig(name="journal", tasks=["refund-duplicate-charge"], runtimes=[runtime], trials=1)
    scratch = tmp_path / runtime
    scratch.mkdir()
    lab = Lab(cluster, FaultBook(scratch / "faults.json"), ProviderConfig(kind="scripted"), config, scratch)
    spec = TrialSpec("journal", load_task("refund-duplicate-charge"), runtime, kill, 0, seed=0)
    request = request_for(spec, lab)
    fault = plan_fault(spec, lab, request.run_id)
    outcome = await run_baseline(spec, lab, request)
    assert fault is not None and lab.faults.fired_at(fault) is not None
    async with httpx.AsyncClient(base_url=cluster.ops_url or "", timeout=10) as http:
        state = (await http.get("/state", headers={"X-Tenant": spec.identity})).json()
    attempts = sorted(scratch.glob(f"{spec.identity}-a*"))
    live = [{(call.step, call.call) for call in read_calls(attempt)} for attempt in attempts]
    return {"outcome": outcome, "refunds": state["refunds"], "live": live}


async def test_the_journaled_baseline_goes_on_where_it_was_killed(cluster: LabCluster, tmp_path: Path) -> None:
    journaled = await _killed_after_the_refund(cluster, tmp_path, "baseline-journal")
    killed, rerun = journaled["live"]
    refund_step = max(step for step, call in killed)
    assert (refund_step, "tool") in killed and (refund_step, "model") in killed
    # The rerun made again only the call that was in flight when it died, the refund itself,
    # under the same idempotency key: the service kept the one refund already made.
    assert killed & rerun == {(refund_step, "tool")}
    assert not any(call == "model" and step <= refund_step for step, call in rerun)
    assert len(journaled["refunds"]) == 1
    outcome = journaled["outcome"]
    assert outcome.run_ids == [outcome.result.run_id] and outcome.result.acceptance.passed
    assert outcome.lost == Usage()  # what it had spent is read back and counted once, in the result
    assert outcome.resumed_at is not None  # back at the killed step: its first live call there

    naive = await _killed_after_the_refund(cluster, tmp_path, "baseline")
    killed, rerun = naive["live"]
    # Started over under a new run id: every step's model call made again, the refund twice.
    assert {(step, "model") for step in range(1, refund_step + 1)} <= killed & rerun
    assert len(naive["refunds"]) == 2
    assert len(naive["outcome"].run_ids) == 2 and naive["outcome"].lost.model_calls == refund_step - 1
