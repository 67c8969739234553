"""An experiment's report directory: the raw trials, the figures computed from them, plots, and
`report.md`, which says what was run, what came of it and how far to trust it.

    trials.jsonl   one TrialRecord per line, as the runner recorded it
    results.json   `ResultsDocument`: the configuration and every figure (`experiments.metrics`)
    *.png          the plots (`experiments.plots`)
    report.md      the above, for a person to read

Every number in `report.md` and in `render_summary` is read from `ResultsDocument`, itself
computed from `trials.jsonl` alone.

    document.py    `results.json` and the names of the files: reading them, finding the latest
    writer.py      writing the directory, or drawing it again from its raw files
    markdown.py    `report.md`: method, configuration, tables, threats to validity
    summary.py     the main tables as plain text, which `experiment report` prints
    cells.py       how a figure is written in a table cell, the same in both
    invariants.py  the section on the lab's invariants over the durable trials
    counterfactual.py  the section on counterfactuals: each durable trial beside its fork
    comparison_section.py  cost per success and the arms compared on paired trials, up front
    comparison_summary.py  the same, compact, for the terminal summary
    comparison_cells.py    how the comparison's figures are written in a cell
    spend_section.py       where each arm's tokens and model-seconds go, per success
"""

from experiments.report.document import ResultsDocument, latest_report, read_results, read_trials
from experiments.report.scenarios import describe_scenario
from experiments.report.summary import render_summary
from experiments.report.writer import report_cut_short, rewrite_report, write_report

__all__ = [
    "ResultsDocument",
    "describe_scenario",
    "latest_report",
    "read_results",
    "read_trials",
    "render_summary",
    "report_cut_short",
    "rewrite_report",
    "write_report",
]
