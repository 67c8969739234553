"""The arms' comparison in the terminal summary: cost per trial and per success, and the paired
success differences over all scenarios, in compact tables."""

from __future__ import annotations

from collections.abc import Callable

from experiments.metrics import ALL_SCENARIOS, CostFigure, ExperimentResults
from experiments.report.comparison_cells import amount, mcnemar, signed, signed_interval, with_interval

Table = Callable[[list[str], list[list[str]]], str]


def comparison_lines(results: ExperimentResults, table: Table) -> list[str]:
    """Lines to print after the main tables; `table` writes a text table (headers, rows)."""
    comparison = results.comparison
    if comparison is None:
        return ["", "Cost per success and paired differences: not in these results (`--rewrite` computes them)."]
    costs = [c for c in comparison.costs if c.scenario == ALL_SCENARIOS]
    paired = [p for p in comparison.paired if p.scenario == ALL_SCENARIOS and p.population == "intention-to-treat"]
    lines = [
        "",
        "Cost over every trial, all scenarios: per trial / per success [95% CI over tasks]",
        table(
            ["runtime", "successes/trials", "tokens", "model s", "wall s"],
            [
                [
                    c.runtime,
                    f"{c.successes}/{c.trials}",
                    _cost(c.tokens, 0),
                    _cost(c.model_seconds, 1),
                    _cost(c.wall_seconds, 1),
                ]
                for c in costs
            ],
        ),
    ]
    if paired:
        lines += [
            "",
            "Paired success difference, all scenarios (intention to treat; 95% CI over tasks / over trajectories)",
            table(
                ["a - b", "pairs (tasks)", "difference", "CI tasks", "CI trajectories", "McNemar p"],
                [
                    [
                        f"{p.a} - {p.b}",
                        f"{p.pairs} ({p.tasks})",
                        signed(p.difference),
                        signed_interval(p.by_task),
                        signed_interval(p.by_trajectory),
                        mcnemar(p),
                    ]
                    for p in paired
                ],
            ),
        ]
    if comparison.deterministic:
        lines.append("Scripted provider: a cell's k trials are one trajectory k times, not k independent draws.")
    return lines


def _cost(figure: CostFigure, digits: int) -> str:
    return (
        f"{amount(figure.per_trial, digits)} / {with_interval(figure.per_success, figure.per_success_interval, digits)}"
    )
