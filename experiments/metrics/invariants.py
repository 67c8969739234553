"""The lab's invariants over an experiment's durable trials, as the trial records hold them
(`TrialRecord.invariant_violations`, checked by `experiments/trials/invariants.py`).

Not counted in success: only a durable run leaves a ledger and a history to check, and a figure
only one runtime can fail would not compare the two. They are listed apart, trial by trial.
"""

from __future__ import annotations

from experiments.metrics.results import InvariantFinding
from experiments.trial_record import TrialRecord


def invariant_findings(trials: list[TrialRecord]) -> tuple[int, list[InvariantFinding]]:
    """How many trials were checked, and each violation (or reason a durable trial was not)."""
    checked = sum(trial.invariant_violations is not None for trial in trials)
    findings = []
    for trial in trials:
        where = {
            "trial_id": trial.trial_id,
            "task_id": trial.task_id,
            "scenario": trial.scenario,
            "trial_index": trial.trial_index,
        }
        if trial.invariants_unchecked:
            findings.append(InvariantFinding(**where, checked=False, finding=trial.invariants_unchecked))
        for violation in trial.invariant_violations or []:
            findings.append(InvariantFinding(**where, checked=True, finding=violation))
    return checked, findings
