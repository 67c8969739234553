"""Where each arm's tokens and model-seconds go (TrialRecord.spend): the goal and plan calls, the
steps' proposals and what a crash made it spend again, per trial, per arm and success, and as the
report's section with each arm's ratio to the reference baseline's."""

from __future__ import annotations

from pathlib import Path

import pytest

from contracts import RunResult, RunState, StepRecord, Usage
from experiments.config import ExperimentConfig, FaultKind, FaultScenario
from experiments.metrics import summarize
from experiments.metrics.spend import spend_ratios
from experiments.report.spend_section import NOT_COMPUTED, spend_sections
from experiments.runner import run_experiment
from experiments.trial_record import Spend, SpendPart, TrialRecord
from experiments.trials.spend import spend_of


def _table(headers: list[str], rows: list[list[str]]) -> str:
    return "\n".join(" | ".join(row) for row in [headers, *rows])


def _result(runtime: str, usage: Usage, steps: list[Usage]) -> RunResult:
    return RunResult(
        run_id="r",
        runtime=runtime,  # type: ignore[arg-type]
        task_id="t",
        outcome=RunState.COMPLETED,
        steps=[StepRecord(step=i, subtask_id="t", outcome="committed", usage=u) for i, u in enumerate(steps, 1)],
        usage=usage,
    )


def _identity_holds(record: TrialRecord) -> None:
    assert record.spend is not None
    total = record.spend.total
    assert (total.calls, total.tokens) == (record.model_calls, record.tokens)
    assert total.model_s == pytest.approx(record.model_time_s)
    for part in (record.spend.planning, record.spend.steps, record.spend.redone):
        assert part.calls >= 0 and part.input_tokens >= 0 and part.output_tokens >= 0 and part.model_s >= -1e-9


def test_the_durable_runs_calls_outside_its_steps_are_its_goal_and_plan() -> None:
    step = Usage(model_calls=1, input_tokens=500, output_tokens=40, latency_ms=800)
    planning = Usage(model_calls=2, input_tokens=300, output_tokens=200, latency_ms=1500)
    spent = spend_of("durable", _result("durable", planning + step + step, [step, step]), Usage())
    assert spent.planning == SpendPart(calls=2, input_tokens=300, output_tokens=200, model_s=1.5)
    assert spent.steps == SpendPart(calls=2, input_tokens=1000, output_tokens=80, model_s=1.6)
    assert spent.redone == SpendPart()
    # A baseline's usage beyond its steps' is the failed attempts it retried: step proposals too.
    failed = Usage(model_calls=1, input_tokens=500, latency_ms=300)
    lost = Usage(model_calls=3, input_tokens=900, output_tokens=60, latency_ms=2000)
    spent = spend_of("baseline", _result("baseline", step + step + failed, [step, step]), lost)
    assert spent.planning == SpendPart()
    assert (spent.steps.calls, spent.steps.input_tokens, spent.steps.output_tokens) == (3, 1500, 80)
    assert spent.steps.model_s == pytest.approx(1.9)
    assert spent.redone == SpendPart(calls=3, input_tokens=900, output_tokens=60, model_s=2.0)


@pytest.mark.timeout(400)
async def test_an_experiment_records_where_each_trials_calls_went(data_dir: Path) -> None:
    kill = FaultScenario(name="kill", kind=FaultKind.KILL, point="after_effect", tool="issue_refund")
    config = ExperimentConfig(
        name="spend",
        tasks=["refund-duplicate-charge"],
        runtimes=["durable", "baseline"],
        trials=1,
        concurrency=1,
        scenarios=[FaultScenario(name="none"), kill],
    )
    directory = await run_experiment(config)

    lines = (directory / "trials.jsonl").read_text().splitlines()
    trials = {(t.runtime, t.scenario): t for t in map(TrialRecord.model_validate_json, lines)}
    assert len(trials) == 4 and all(t.infrastructure_error is None for t in trials.values())
    for record in trials.values():
        _identity_holds(record)
    spends = {key: record.spend for key, record in trials.items() if record.spend is not None}
    assert spends[("durable", "none")].planning.calls > 0 and spends[("durable", "none")].steps.calls > 0
    assert spends[("baseline", "none")].planning == SpendPart() and spends[("baseline", "none")].steps.calls > 0
    # The naive baseline killed after its refund starts over: the killed attempt's calls are redone.
    assert spends[("baseline", "kill")].redone.calls > 0 and spends[("baseline", "none")].redone == SpendPart()
    assert spends[("durable", "kill")].redone == SpendPart()
    assert "## Where the tokens go" in (directory / "report.md").read_text()


def _trial(runtime: str, index: int, success: bool, spend: Spend | None, scenario: str = "none") -> TrialRecord:
    total = spend.total if spend is not None else SpendPart(calls=4, input_tokens=900, output_tokens=100)
    return TrialRecord(
        experiment_id="x",
        trial_id=f"{runtime}-{scenario}-{index}",
        task_id="t",
        runtime=runtime,  # type: ignore[arg-type]
        scenario=scenario,
        fault_kind=FaultKind.NONE if scenario == "none" else FaultKind.KILL,
        trial_index=index,
        seed=index,
        success=success,
        model_calls=total.calls,
        tokens=total.tokens,
        model_time_s=total.model_s,
        spend=spend,
    )


def _part(calls: int, prompt: int, generated: int, seconds: float) -> SpendPart:
    return SpendPart(calls=calls, input_tokens=prompt, output_tokens=generated, model_s=seconds)


def _synthetic() -> list[TrialRecord]:
    """Durable: 2 successes in 3 trials, each 600 planning and 1200 step tokens. Journaled
    baseline: 2 successes in 2, each 1000 step tokens. Naive baseline: one success, one kill
    that made it redo 500 tokens."""
    durable = Spend(planning=_part(2, 500, 100, 2.0), steps=_part(4, 1000, 200, 4.0))
    journal = Spend(steps=_part(4, 800, 200, 3.0))
    naive = Spend(steps=_part(4, 800, 200, 3.0))
    redone = Spend(steps=_part(4, 800, 200, 3.0), redone=_part(2, 400, 100, 1.0))
    return [
        *(_trial("durable", i, i < 2, durable) for i in range(3)),
        *(_trial("baseline-journal", i, True, journal) for i in range(2)),
        _trial("baseline", 0, True, naive),
        _trial("baseline", 1, False, redone, scenario="kill"),
    ]


def test_per_success_parts_and_ratios_to_the_journaled_baseline() -> None:
    results = summarize(_synthetic())
    assert results.spend is not None
    rows = {(row.runtime, row.scenario): row for row in results.spend}
    durable = rows[("durable", "all")]
    assert durable.planning is not None and durable.steps is not None and durable.total is not None
    # Three trials' spend over two successes.
    assert (durable.planning.tokens, durable.planning.calls, durable.planning.model_s) == (900, 3, 3.0)
    assert (durable.steps.tokens, durable.total.tokens, durable.total.model_s) == (1800, 2700, 9.0)
    assert durable.step_prompt_tokens == 250  # 1000 prompt tokens over 4 step calls
    naive = rows[("baseline", "all")]
    assert naive.redone is not None and (naive.redone.tokens, naive.redone.calls) == (500, 2)
    assert rows[("baseline", "none")].redone is not None and rows[("baseline", "none")].redone.tokens == 0
    assert ("baseline", "kill") not in rows  # over all scenarios and the fault-free one only

    ratios = {(r.runtime, r.scenario): r for r in spend_ratios(results.spend)}
    # Against baseline-journal's 1000 tokens and 3 s per success, not the naive baseline's.
    assert {r.reference for r in ratios.values()} == {"baseline-journal"}
    assert ratios[("durable", "all")].tokens == pytest.approx(2.7)
    assert ratios[("durable", "all")].model_s == pytest.approx(3.0)
    assert ratios[("baseline", "all")].tokens == pytest.approx(2.5)

    shown = "\n".join(spend_sections(results, _table))
    assert "durable | 2/3 | 900 / 3.00 | 1800 / 6.00 | 0 / 0.00 | 2700 / 9.00 | 3.0 / 6.0 / 0.0 | 250" in shown
    assert "durable 2.70x the tokens and 3.00x the model-seconds of baseline-journal: above the 1.2x target" in shown


def test_without_the_journaled_baseline_the_naive_one_is_the_reference() -> None:
    trials = [t for t in _synthetic() if t.runtime != "baseline-journal"]
    ratios = {(r.runtime, r.scenario): r for r in spend_ratios(summarize(trials).spend or [])}
    assert ratios[("durable", "none")].reference == "baseline"
    assert ratios[("durable", "none")].tokens == pytest.approx(2700 / 1000)
    # Over all scenarios the naive baseline's one success carries its failed trial's 1500 tokens too.
    assert ratios[("durable", "all")].tokens == pytest.approx(2700 / 2500)
    shown = "\n".join(spend_sections(summarize(trials), _table))
    # Within on tokens, above on model-seconds (9 s against 7 s): above the target.
    assert "durable 1.08x the tokens and 1.29x the model-seconds of baseline: above the 1.2x target" in shown
    every = [t.model_copy(update={"success": True}) if t.runtime == "durable" else t for t in trials]
    shown = "\n".join(spend_sections(summarize(every), _table))
    assert "durable 0.72x the tokens and 0.86x the model-seconds of baseline: within the 1.2x target" in shown


def test_records_without_a_breakdown_give_no_figure() -> None:
    old = [t.model_copy(update={"spend": None}) for t in _synthetic()]
    results = summarize(old)
    assert results.spend is not None and all(row.total is None and row.unrecorded for row in results.spend)
    assert spend_ratios(results.spend) == []
    shown = "\n".join(spend_sections(results, _table))
    assert "needs trial records made by a version that records" in shown and "7 of 7" in shown
    assert "2700" not in shown and " | " not in shown and "Per success" not in shown  # no table, no figure
    # One arm's records made before: its row has none, the others' stand.
    mixed = [t.model_copy(update={"spend": None}) if t.runtime == "baseline" else t for t in _synthetic()]
    shown = "\n".join(spend_sections(summarize(mixed), _table))
    assert "2 of 7 trial records" in shown and "for baseline." in shown
    assert "durable 2.70x the tokens" in shown
    # Results written before the breakdown was computed say how to compute it.
    assert spend_sections(results.model_copy(update={"spend": None}), _table)[1] == NOT_COMPUTED
