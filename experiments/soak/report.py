"""What a soak found: its figures, kept as JSON, and the tables it prints."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

from pydantic import BaseModel, Field

from experiments.soak.recovery import Kill, Recovered


class Spread(BaseModel):
    count: int = 0
    p50_s: float | None = None
    p95_s: float | None = None
    max_s: float | None = None

    @classmethod
    def of(cls, times: Sequence[float]) -> Spread:
        if not times:
            return cls()
        p95 = statistics.quantiles(times, n=20, method="inclusive")[-1] if len(times) > 1 else times[0]
        return cls(count=len(times), p50_s=statistics.median(times), p95_s=p95, max_s=max(times))


# Attempts from here on share a row: their backoff is the retry policy's cap.
LAST_ATTEMPT_SHOWN = 5


def by_attempt(recovered: Sequence[Recovered]) -> dict[str, Spread]:
    """Recovery per kill, grouped by the attempt the kill ended: a retry waits for its backoff
    after the heartbeat timeout, so the fourth kill in a row of one activity waits longer than
    the first. 'task': the kill held none of the run's activities (a workflow task, or between)."""
    groups: dict[str, list[float]] = {}
    for found in recovered:
        key = "task" if found.attempt is None else str(min(found.attempt, LAST_ATTEMPT_SHOWN))
        groups.setdefault(key, []).append(found.wait_s)
    return {key: Spread.of(groups[key]) for key in sorted(groups)}


class RunProblem(BaseModel):
    run_id: str
    task_id: str
    problem: str


class Judgement(BaseModel):
    completed: int = Field(description="runs that completed and whose end state passed the task's checks")
    ledgers_verified: int
    lost_ledger_steps: int = Field(description="steps a run took that its ledger does not hold")
    duplicate_effects: int = Field(description="copies of an effect beyond the first, over every world")
    repeated_keys: int = Field(description="idempotency keys that hold more than one effect")
    problems: list[RunProblem] = Field(default_factory=list)


class SoakReport(Judgement):
    started_at: datetime
    wall_s: float
    seed: int
    kills: int
    restarts: int
    runs: int
    tasks: dict[str, int] = Field(description="task id -> runs of it")
    recovery: Spread = Field(
        description="per kill that hit a run's work: from the kill to that run's work starting again"
    )
    restart_recovery: Spread = Field(description="per restart: from stopping the server to any run going on")
    recovery_by_attempt: dict[str, Spread] = Field(
        default_factory=dict,
        description="the kills that hit a run, by the attempt of its activity they ended ('task': none held)",
    )
    kept: str | None = Field(None, description="the soak's data directory, kept when a check failed or asked")
    recovered: list[Recovered] = Field(default_factory=list, description="each kill that hit a run, and that run")
    retried_again: int = Field(
        0, description="kills whose held activity failed again after its retry: not timed (history keeps its last try)"
    )
    kill_log: list[Kill] = Field(default_factory=list, description="every kill, and what its worker held")

    @property
    def passed(self) -> bool:
        return (
            not self.problems
            and self.completed == self.runs
            and self.ledgers_verified == self.runs
            and self.lost_ledger_steps == 0
            and self.duplicate_effects == 0
            and self.repeated_keys == 0
        )


def print_report(report: SoakReport, out: Path) -> None:
    def seconds(value: float | None) -> str:
        return "-" if value is None else f"{value:.2f}"

    print("| kills | restarts | runs | completed | ledgers verified | lost ledger steps | duplicate effects |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    print(
        f"| {report.kills} | {report.restarts} | {report.runs} | {report.completed} | {report.ledgers_verified} "
        f"| {report.lost_ledger_steps} | {report.duplicate_effects + report.repeated_keys} |"
    )
    print()
    print("| recovery | count | p50 s | p95 s | max s |")
    print("| --- | ---: | ---: | ---: | ---: |")
    spreads = {"after a kill that hit a run": report.recovery}
    for key, spread in report.recovery_by_attempt.items():
        if key == "task":
            spreads["  of those, holding no activity of the run"] = spread
        else:
            later = " or later" if key == str(LAST_ATTEMPT_SHOWN) else ""
            spreads[f"  of those, ending an activity's attempt {key}{later}"] = spread
    spreads["after a server restart"] = report.restart_recovery
    for name, spread in spreads.items():
        figures = " | ".join(seconds(value) for value in (spread.p50_s, spread.p95_s, spread.max_s))
        print(f"| {name} | {spread.count} | {figures} |")
    if report.retried_again:
        print(
            f"\n{report.retried_again} kills hit an activity whose next attempt failed too (killed again, or for"
            " its own reasons): not timed, history keeps only an activity's last attempt"
        )
    print()
    for problem in report.problems:
        print(f"problem: {problem.run_id} ({problem.task_id}): {problem.problem}")
    if report.kept:
        print(f"the runs' data is kept in {report.kept}")
    print(f"{'passed' if report.passed else 'FAILED'} in {report.wall_s:.0f} s; figures: {out}")
