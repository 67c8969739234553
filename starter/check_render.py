"""The text of `starter check`: a rule a line (pass, FAIL or skip), each violation under its rule
with the events it cites, and for `--all` a line per run and a tally per rule."""

from __future__ import annotations

from contracts.counts import counted
from lab.invariants import RULES, InvariantReport

_WIDTH = max(len(rule.id) for rule in RULES)
_SHOWN = {"pass": "pass", "fail": "FAIL", "skip": "skip"}


def render_run(report: InvariantReport, *, brief: bool = False) -> list[str]:
    """Every rule of one run; `brief`: one line for a clean run, and only its violations otherwise."""
    counts = _counts(report)
    if brief:
        head = "ok  " if report.clean else "FAIL"
        lines = [f"{head}  {report.run_id}: {counts}"]
        lines += [f"        {found.rule}: {found}" for found in report.violations]
        return lines
    lines = [f"run {report.run_id}", *(f"  {note}" for note in report.notes)]
    for outcome in report.outcomes:
        said = outcome.skipped_because if outcome.status == "skip" else outcome.title
        lines.append(f"  {_SHOWN[outcome.status]}  {outcome.rule.ljust(_WIDTH)}  {said}")
        lines += [f"        - {found}" for found in outcome.violations]
    found = len(report.violations)
    verdict = "clean" if report.clean else counted(found, "violation")
    lines.append(f"{verdict}: {counts}")
    return lines


def render_tally(reports: list[InvariantReport]) -> list[str]:
    """A line per rule over every run, then the runs clean and not."""
    lines = []
    for rule in RULES:
        statuses = [outcome.status for report in reports for outcome in report.outcomes if outcome.rule == rule.id]
        passed, failed, skipped = (statuses.count(status) for status in ("pass", "fail", "skip"))
        overall = "fail" if failed else ("pass" if passed else "skip")
        tally = f"{counted(passed, 'run')} {'passes' if passed == 1 else 'pass'}, {failed} fail, {skipped} skipped"
        lines.append(f"  {_SHOWN[overall]}  {rule.id.ljust(_WIDTH)}  {tally}")
    dirty = sum(not report.clean for report in reports)
    lines.append(f"{counted(len(reports), 'run')} checked: {len(reports) - dirty} clean, {dirty} with violations")
    return lines


def _counts(report: InvariantReport) -> str:
    statuses = [outcome.status for outcome in report.outcomes]
    parts = [
        f"{statuses.count(status)} {label}"
        for status, label in (("pass", "pass"), ("fail", "fail"), ("skip", "skipped"))
        if statuses.count(status)
    ]
    return f"{counted(len(statuses), 'rule')}: " + ", ".join(parts)
