"""The report's sections on the arms compared on the unit of analysis, the (task, seed)
trajectory (`experiments.metrics.compare`): cost per trial and per success up front, then the
paired success differences, the primary fault endpoint, intention to treat beside per protocol,
and, with the scripted oracle, each cell's outcomes instead of rates."""

from __future__ import annotations

from collections.abc import Callable

from experiments.metrics import ALL_SCENARIOS, ArmCost, Comparison, ExperimentResults
from experiments.report.cells import fraction, rate
from experiments.report.comparison_cells import (
    mcnemar,
    per_success,
    per_trial,
    share_interval,
    signed,
    signed_interval,
)

Table = Callable[[list[str], list[list[str]]], str]

_NOT_COMPUTED = (
    "Not in these results (written before the comparison was computed): "
    "`starter experiment report --rewrite` computes it from `trials.jsonl`."
)
_COST_HEADERS = [
    *("trials", "successes", "tokens per trial", "tokens per success", "model s per trial"),
    *("model s per success", "wall s per trial", "wall s per success"),
]


def comparison_sections(results: ExperimentResults, table: Table) -> list[str]:
    """Headings and sections, in the order the report shows them. `table`: how the report
    writes a table (headers, rows)."""
    comparison = results.comparison
    if comparison is None:
        return ["## Cost per trial and per success", _NOT_COMPUTED, "## Arms compared on paired trials", _NOT_COMPUTED]
    return [
        "## Cost per trial and per success",
        _cost_overall(comparison, table),
        "## Arms compared on paired trials",
        _paired_intro(comparison),
        "### Paired success difference",
        _paired_table(comparison, table),
        "### Primary fault endpoint: P(fail under fault | succeeded without it)",
        _endpoint_table(comparison, table),
        "### Intention to treat beside per protocol",
        _populations_table(comparison, table),
        *(
            ["### Deterministic replicates: each cell's outcomes", _replicates_table(comparison, table)]
            if comparison.deterministic
            else []
        ),
        "### Cost per scenario",
        table(
            ["scenario", "runtime", *_COST_HEADERS], [[c.scenario, *_cost_row(c)] for c in _costs(comparison, False)]
        ),
    ]


def _costs(comparison: Comparison, overall: bool) -> list[ArmCost]:
    return [cost for cost in comparison.costs if (cost.scenario == ALL_SCENARIOS) == overall]


def _cost_row(cost: ArmCost) -> list[str]:
    return [
        cost.runtime,
        str(cost.trials),
        str(cost.successes),
        per_trial(cost.tokens, 0),
        per_success(cost.tokens, 0),
        per_trial(cost.model_seconds, 2),
        per_success(cost.model_seconds, 2),
        per_trial(cost.wall_seconds, 2),
        per_success(cost.wall_seconds, 2),
    ]


def _cost_overall(comparison: Comparison, table: Table) -> str:
    spec = comparison.bootstrap
    said = [
        "Over every trial an arm ran, in all its scenarios (a trial whose fault never fired spent too). Per "
        "success: the sum over the arm's trials divided by its successes, so failed trials' cost counts; "
        f"— without a success. Intervals: {spec.confidence:.0%} cluster bootstrap over tasks "
        f"({spec.resamples} resamples, seed {spec.seed}); resamples without a success are left out of a "
        "per-success interval.",
        table(["runtime", *_COST_HEADERS], [_cost_row(cost) for cost in _costs(comparison, True)]),
    ]
    if comparison.deterministic:
        said.append(
            "The scripted provider's tokens are estimated from the text's length (a quarter of its "
            "characters), not counted by a model's tokenizer, and its model time is not a model's."
        )
    return "\n\n".join(said)


def _paired_intro(comparison: Comparison) -> str:
    spec = comparison.bootstrap
    said = [
        "The unit of analysis is the (task, seed) trajectory. Two arms' trials are a pair when they share "
        "task, scenario and trial index (so seed); the difference is the mean over pairs of success(a) - "
        "success(b). Intention to treat: every pair, a trial whose fault never fired counted as what happened; "
        "per protocol (shown where it differs): pairs whose trials are both valid. Intervals: "
        f"{spec.confidence:.0%} percentile cluster bootstrap ({spec.resamples} resamples, numpy seed {spec.seed}) "
        "resampling tasks with all their pairs, and (task, seed) trajectories with theirs (over `all`, a "
        "trajectory's pairs in every scenario go together). McNemar: the exact two-sided binomial test of the "
        "discordant pairs; it takes pairs as independent, which over `all` (one trajectory under several faults) "
        "they are not: read the interval over tasks first. Per-arm Wilson intervals below are context, not the "
        "comparison.",
    ]
    if comparison.deterministic:
        said.append(
            "**The provider is scripted.** Outside model noise, the k trials of a cell are one trajectory k "
            "times, not k draws: the interval over trajectories and McNemar count the copies and overstate the "
            "evidence, and so do the rates and Wilson intervals in Results. Read the interval over tasks and the "
            "table of each cell's outcomes below."
        )
    return "\n\n".join(said)


def _paired_table(comparison: Comparison, table: Table) -> str:
    itt = {(p.a, p.b, p.scenario): p.pairs for p in comparison.paired if p.population == "intention-to-treat"}
    rows = [
        [
            f"{p.a} - {p.b}",
            p.scenario,
            p.population,
            f"{p.pairs} ({p.tasks})",
            f"{p.a_successes} / {p.b_successes}",
            signed(p.difference),
            signed_interval(p.by_task),
            signed_interval(p.by_trajectory),
            f"{p.a_only} / {p.b_only}",
            mcnemar(p),
        ]
        for p in comparison.paired
        if p.population == "intention-to-treat" or p.pairs != itt.get((p.a, p.b, p.scenario))
    ]
    headers = ["a - b", "scenario", "population", "pairs (tasks)", "successes a / b", "difference"]
    headers += ["95% CI over tasks", "95% CI over trajectories", "discordant: a only / b only", "McNemar p"]
    return table(headers, rows) if rows else "No pairs: fewer than two arms ran the same task, scenario and seed."


def _endpoint_table(comparison: Comparison, table: Table) -> str:
    endpoints = comparison.fault_endpoints
    itt = {(e.runtime, e.scenario): e.pairs for e in endpoints if e.population == "intention-to-treat"}
    rows = [
        [
            e.runtime,
            e.scenario,
            e.fault_free,
            e.population,
            f"{e.pairs} ({e.tasks})",
            str(e.failed),
            f"{e.rate:.2f}",
            share_interval(e.by_task),
        ]
        for e in endpoints
        if e.population == "intention-to-treat" or e.pairs != itt.get((e.runtime, e.scenario))
    ]
    headers = ["runtime", "fault scenario", "fault-free scenario", "population"]
    headers += ["succeeded without the fault (tasks)", "failed under it", "P(fail | succeeded without)"]
    said = [
        "Each arm's faulted trial against its own fault-free trial of the same task and seed: of the pairs "
        "whose fault-free trial succeeded, the share that failed under the fault, with its 95% cluster-bootstrap "
        "interval over tasks. `all`: every fault scenario of the arm together."
    ]
    if rows:
        said.append(table([*headers, "95% CI over tasks"], rows))
    else:
        said.append(
            "Not measured: no fault scenario has a fault-free trial (a scenario of kind `none`) of the same "
            "task and seed that succeeded."
        )
    return "\n\n".join(said)


def _populations_table(comparison: Comparison, table: Table) -> str:
    rows = [
        [
            p.scenario,
            p.runtime,
            fraction(p.intention_to_treat),
            rate(p.intention_to_treat),
            fraction(p.per_protocol),
            rate(p.per_protocol),
            "; ".join(f"{e.reason} ({e.trials})" for e in p.exclusions) or "none",
        ]
        for p in comparison.populations
    ]
    headers = ["scenario", "runtime", "successes/trials", "intention to treat", "successes/valid", "per protocol"]
    return table([*headers, "excluded from per protocol (trials)"], rows)


def _replicates_table(comparison: Comparison, table: Table) -> str:
    runtimes = list(dict.fromkeys(cell.runtime for cell in comparison.replicates))
    cells: dict[tuple[str, str], dict[str, str]] = {}
    for cell in comparison.replicates:
        said = "; ".join(f"{outcome} x{count}" for outcome, count in cell.outcomes)
        cells.setdefault((cell.task_id, cell.scenario), {})[cell.runtime] = said
    rows = [[task, scenario, *(row.get(r, "not run") for r in runtimes)] for (task, scenario), row in cells.items()]
    said = [
        "With the scripted oracle and no model noise, a cell's k trials replay one trajectory: each cell shows "
        "its outcomes and how many trials had each (one outcome: one observation, k times). Model-noise "
        "scenarios vary from seed to seed and are left out here."
    ]
    said.append(table(["task", "scenario", *runtimes], rows) if rows else "No trial outside model noise.")
    return "\n\n".join(said)
