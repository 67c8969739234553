"""The report's section on where each arm's tokens and model-seconds go
(experiments.metrics.spend): per success, the goal and plan calls, the steps' proposals and what
crashes made it spend again, and each arm's cost per success against the reference baseline's."""

from __future__ import annotations

from collections.abc import Callable

from experiments.metrics import (
    ALL_SCENARIOS,
    TARGET_RATIO,
    ArmSpend,
    ExperimentResults,
    SpendRatio,
    SpendShare,
    spend_ratios,
)
from experiments.report.comparison_cells import amount

Table = Callable[[list[str], list[list[str]]], str]

HEADING = "## Where the tokens go"
NOT_COMPUTED = (
    "Not in these results (written before it was computed): "
    "`starter experiment report --rewrite` computes it from `trials.jsonl`."
)
UNRECORDED = (
    "This section needs trial records made by a version that records where each trial's calls went "
    "(`TrialRecord.spend`); {unrecorded} of {trials} trial records here have no such breakdown, so "
    "no figure is given for {arms}."
)
_HEADERS = [
    *("scenario", "runtime", "successes/trials", "goal and plan: tokens / model s", "steps: tokens / model s"),
    *("redone after a crash: tokens / model s", "total: tokens / model s", "calls: plan / steps / redone"),
    "prompt tokens per step call",
]


def spend_sections(results: ExperimentResults, table: Table) -> list[str]:
    if results.spend is None:
        return [HEADING, NOT_COMPUTED]
    rows = results.spend
    if not rows:
        return []
    lacking = [row for row in rows if row.unrecorded]
    over_all = [row for row in rows if row.scenario == ALL_SCENARIOS]
    unrecorded = UNRECORDED.format(
        unrecorded=sum(row.unrecorded for row in over_all),
        trials=sum(row.trials for row in over_all),
        arms=", ".join(dict.fromkeys(row.runtime for row in lacking)),
    )
    if len(lacking) == len(rows):
        return [HEADING, unrecorded]
    said = [
        "Per success: summed over every trial an arm ran, in the scenario, divided by its successes (— "
        "without a success). Goal and plan: the calls in no step, the durable runtime's goal compilation and "
        "plan drafts and revisions (a baseline makes none). Steps: the steps' proposal calls, failed attempts "
        "included. Redone: what the steps a killed attempt had finished spent, which a naive rerun spends "
        "again (a call in flight when a process died is in no part: no runtime reports what it spent). "
        "Prompt tokens per step call: the goal, the workspace and what history and feedback add to each "
        "step's prompt, over the arm's step calls.",
        *([unrecorded] if lacking else []),
    ]
    said.append(table(_HEADERS, [_row(row) for row in rows]))
    said.append(_ratios(spend_ratios(rows)))
    if results.comparison is not None and results.comparison.deterministic:
        said.append(
            "The scripted provider's tokens are estimated from the text's length, and its model time is not a model's."
        )
    return [HEADING, *said]


def _row(row: ArmSpend) -> list[str]:
    def cell(share: SpendShare | None) -> str:
        return "—" if share is None else f"{share.tokens:.0f} / {share.model_s:.2f}"

    parts = (row.planning, row.steps, row.redone)
    calls = " / ".join(amount(None if p is None else p.calls, 1) for p in parts)
    return [
        row.scenario,
        row.runtime,
        f"{row.successes}/{row.trials}",
        *(cell(part) for part in parts),
        cell(row.total),
        "—" if row.total is None else calls,
        amount(row.step_prompt_tokens, 0),
    ]


def _ratios(ratios: list[SpendRatio]) -> str:
    target = f"the target: the durable runtime's at most {TARGET_RATIO:g} times"
    if not ratios:
        return (
            f"No ratio to a baseline's cost per success ({target}): it needs `baseline-journal` or `baseline` "
            "and another arm, both with a success and a breakdown, in the same scenario."
        )
    lines = [f"Tokens and model-seconds per success as a ratio to the reference arm's ({target}):", ""]
    for ratio in ratios:
        seconds = "—" if ratio.model_s is None else f"{ratio.model_s:.2f}x"
        verdict = ""
        if ratio.runtime == "durable":
            over = ratio.tokens > TARGET_RATIO or (ratio.model_s is not None and ratio.model_s > TARGET_RATIO)
            verdict = f": {'above' if over else 'within'} the {TARGET_RATIO:g}x target"
        lines.append(
            f"- `{ratio.scenario}`: {ratio.runtime} {ratio.tokens:.2f}x the tokens and {seconds} the "
            f"model-seconds of {ratio.reference}{verdict}."
        )
    return "\n".join(lines)
