"""The report's section on the lab's invariants over the durable trials (`starter check` over
each trial's ledger and history, while the experiment's server still held it)."""

from __future__ import annotations

from collections.abc import Callable

from experiments.metrics import ExperimentResults

Table = Callable[[list[str], list[list[str]]], str]


def invariants_section(results: ExperimentResults, table: Table) -> str:
    """`table`: how the report writes a table (headers, rows)."""
    checked = results.invariants_checked
    violations = [finding for finding in results.invariant_findings if finding.checked]
    unchecked = [finding for finding in results.invariant_findings if not finding.checked]
    said = [
        f"{checked} durable trial{'s' if checked != 1 else ''} checked over their ledger and Temporal history "
        "(`docs/invariants.md`); not counted in success, since only the durable runtime leaves either."
    ]
    if violations:
        rows = [[f.trial_id, f.task_id, f.scenario, str(f.trial_index), f.finding] for f in violations]
        said.append(table(["trial", "task", "scenario", "index", "violation"], rows))
    elif checked:
        said.append("No violation: every invariant held in every trial checked.")
    said += [f"Not checked: `{finding.trial_id}`: {finding.finding}" for finding in unchecked]
    return "\n\n".join(said)
