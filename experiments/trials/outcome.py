"""What a durable or a baseline run gives back, to be judged and measured."""

from __future__ import annotations

from dataclasses import dataclass

from contracts import RunResult, Usage


@dataclass
class TrialOutcome:
    result: RunResult
    run_ids: list[str]
    # What attempts lost to a crash had spent (the baseline's), and when the run got back to
    # where it was when it died.
    lost: Usage
    resumed_at: float | None = None
    server_restarted_at: float | None = None
    # A random-time crash that fired: when, the step the run was at, the effects in its world.
    killed_at: float | None = None
    killed_step: int | None = None
    effects_at_kill: int | None = None
    # A baseline's first process's start (epoch seconds), which its model-call timeline counts from.
    process_started_at: float | None = None
