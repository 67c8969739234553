"""The rule every figure counts a success by."""

from __future__ import annotations

from experiments.trial_record import TrialRecord


def counts_as_success(trial: TrialRecord) -> bool:
    return trial.success and trial.infrastructure_error is None and trial.duplicate_effects == 0
