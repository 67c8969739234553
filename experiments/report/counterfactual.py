"""The report's section on counterfactuals: each durable trial beside its fork after step K,
run live from step K+1 with the counterfactual's provider (`ExperimentConfig.counterfactual`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from contracts.counts import counted
from experiments.config import CounterfactualSpec
from experiments.metrics import ExperimentResults, SuccessRate, counts_as_success, fork_succeeded
from experiments.report.cells import ci, fraction, rate
from experiments.trial_record import TrialRecord

Table = Callable[[list[str], list[list[str]]], str]

_HEADERS = ["task", "scenario", "forked/trials", "trial success", "fork success", "fork 95% CI"]
_MORE = ["fixed", "broken", "same path", "live calls", "parted at"]


def forks_of_note(forks_of: str) -> list[str]:
    """The report's line for counterfactuals of an experiment recorded earlier; none otherwise."""
    if not forks_of:
        return []
    return [
        f"**Counterfactuals of experiment `{forks_of}`**: its trials, recorded there, were forked here from the "
        "histories and worlds it kept; every figure but the counterfactuals' is its own."
    ]


def counterfactual_sections(
    spec: CounterfactualSpec | None, results: ExperimentResults, trials: Sequence[TrialRecord], table: Table
) -> list[str]:
    """The heading and the section, when the config asks for counterfactuals; none otherwise."""
    if spec is None:
        return []
    return [
        "### Counterfactuals: each durable trial forked after a step",
        counterfactual_section(spec, results, trials, table),
    ]


def counterfactual_section(
    spec: CounterfactualSpec, results: ExperimentResults, trials: Sequence[TrialRecord], table: Table
) -> str:
    """`table`: how the report writes a table (headers, rows)."""
    provider = {
        "scripted": "the scripted provider (each task's own script)",
        "local": f"the experiment's local model ({spec.provider.model or 'its default'})",
        "openai": f"{spec.provider.model} at {spec.provider.base_url or 'the provider default'}",
    }[spec.provider.kind]
    said = [
        f"Each durable trial, once ended, was forked after its step {spec.from_step} (`docs/fork.md`) and run live "
        f"from step {spec.from_step + 1} with {provider}, without the trial's injected faults. Steps "
        f"1..{spec.from_step} are the trial's own, never run again; the fork's workspace and operations world "
        "are the trial's as they were after that step. The fork is judged as the trial was, on its own end state. "
        "*Fixed*: the trial failed and its fork succeeded; *broken*: the other way round; *same path*: the fork "
        "did what the trial did, step for step; *live calls*: the fork's own model calls (mean); *parted at*: "
        "the first step it differs from its trial at (median). Not in any figure above."
    ]
    rows = []
    for row in results.counterfactuals:
        rows.append(
            [
                row.task_id,
                row.scenario,
                f"{row.forked}/{row.trials}",
                _share(row.trial_success),
                _share(row.fork_success),
                ci(row.fork_success),
                str(row.fixed),
                str(row.broken),
                str(row.same_path),
                f"{row.live_model_calls_mean:.1f}" if row.live_model_calls_mean is not None else "-",
                f"{row.first_difference_median:g}" if row.first_difference_median is not None else "-",
            ]
        )
    said.append(table([*_HEADERS, *_MORE], rows) if rows else "No durable trial was recorded.")
    forked = [trial for trial in trials if trial.counterfactual is not None and trial.valid]
    if forked:
        said.append(table(["trial", "trial outcome", "fork", "fork outcome", "parted at", "note"], _trial_rows(forked)))
    return "\n\n".join(said)


def _share(success: SuccessRate) -> str:
    return f"{fraction(success)} ({rate(success)})"


def _trial_rows(trials: Sequence[TrialRecord]) -> list[list[str]]:
    rows = []
    for trial in trials:
        fork = trial.counterfactual
        assert fork is not None
        mine = (
            f"{'ok' if counts_as_success(trial) else 'failed'} ({trial.outcome or '-'}, {counted(trial.steps, 'step')})"
        )
        if not fork.forked:
            rows.append([trial.trial_id, mine, "-", "not forked", "-", fork.not_forked])
            continue
        theirs = f"{'ok' if fork_succeeded(trial) else 'failed'} ({fork.outcome or '-'}, {counted(fork.steps, 'step')})"
        notes = [fork.infrastructure_error or ""]
        if fork.invariant_violations:
            found = counted(len(fork.invariant_violations), "invariant violation")
            notes.append(f"{found}: {fork.invariant_violations[0]}")
        if fork.duplicate_effects:
            notes.append(f"{fork.duplicate_effects} duplicate effects")
        parted = str(fork.first_difference) if fork.first_difference is not None else "same path"
        rows.append([trial.trial_id, mine, f"`{fork.run_id}`", theirs, parted, "; ".join(filter(None, notes))])
    return rows
