"""`python -m starter diff RUN_A RUN_B`: where two runs diverge, and how each ended."""

from __future__ import annotations

from agent.dependencies_from_environment import from_environment
from contracts.counts import counted, steps_through
from lab.runs.run_diff import DiffStep, RunDiff, RunRecord, diff_runs, read_run

_WIDTH = 58


def diff_command(run_a: str, run_b: str) -> int:
    ledgers = from_environment().ledgers  # the runs' ledgers, under this process's data directory
    diff = diff_runs(read_run(ledgers, run_a), read_run(ledgers, run_b))
    for line in render(diff):
        print(line)
    return 0


def render(diff: RunDiff) -> list[str]:
    a, b = diff.a, diff.b
    lines = [f"A {a.run_id}{_origin(a)}", f"B {b.run_id}{_origin(b)}", f"task {a.task}", ""]
    if diff.first_difference is None:
        lines.append(f"the same {counted(len(a.steps), 'step')} in both")
    else:
        first = diff.first_difference
        lines.append(
            f"{steps_through(first - 1)} the same; they part at step {first}" if first > 1 else "they part at step 1"
        )
        lines.append(f"  {'step':>4}  {'A':<{_WIDTH}}  B")
        a_steps = {step.step: step for step in a.steps}
        b_steps = {step.step: step for step in b.steps}
        last = max([0, *a_steps, *b_steps])
        for number in range(first, last + 1):
            left, right = _cell(a_steps.get(number)), _cell(b_steps.get(number))
            mark = " " if a_steps.get(number) == b_steps.get(number) else "*"
            lines.append(f"{mark} {number:>4}  {left:<{_WIDTH}}  {right}")
        lines.append("")
        lines.append(f"step {first} in full:")
        for name, steps in (("A", a_steps), ("B", b_steps)):
            step = steps.get(first)
            said = f"{step.full} -> {step.outcome or 'unclosed'}" if step else "-"
            lines.append(f"  {name}: {said}")
    lines.append("")
    lines.append(f"end: A {_end(a)}")
    lines.append(f"     B {_end(b)}")
    if diff.files is not None:
        shown = ", ".join(diff.files) if diff.files else "none"
        lines.append(f"files that differ between the end states: {shown}")
    else:
        lines.append("end states not compared: a workspace is not on this machine")
    return lines


def _origin(record: RunRecord) -> str:
    if not record.ancestry:
        return ""
    parent, step = record.ancestry[0]
    return f" (a fork of {parent} after step {step})"


def _cell(step: DiffStep | None) -> str:
    if step is None:
        return "-"
    text = f"{step.shown} -> {step.outcome or 'unclosed'}"
    return text if len(text) <= _WIDTH else text[: _WIDTH - 3] + "..."


def _end(record: RunRecord) -> str:
    if not record.outcome:
        return "not finished (no run_finished in its ledger)"
    # A reason that only repeats the outcome is not said twice ("FAILED: FAILED").
    return record.outcome + (f": {record.reason}" if record.reason and record.reason != record.outcome else "")
