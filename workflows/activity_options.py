"""Timeouts and retry policies for each activity the agent workflow calls.

Temporal owns retries: providers run with their own retries off. Which errors retrying
cannot fix is declared once, on the classes of `contracts.errors`: every policy lists them (the
activities also mark each such ApplicationError non-retryable), so a bad script or input fails
fast.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from contracts.errors import non_retryable_types
    from contracts.retries import RetryBudget


@dataclass(frozen=True)
class ActivityOptions:
    start_to_close: timedelta
    retry: RetryPolicy
    # Long activities heartbeat twice a second; a silent worker is presumed dead after this.
    heartbeat: timedelta | None = None
    # All attempts together, for an activity retried by time rather than by count.
    schedule_to_close: timedelta | None = None


_NON_RETRYABLE = non_retryable_types()
# A worker killed mid-activity is noticed when its heartbeats stop for this long, and the retry
# starts at once on another worker: recovery in about 2 s, not the 6 s of a 5 s timeout and a
# 1 s first backoff. A live worker's heartbeats reach the server at least once a second
# (worker.py), so it has a second of slack on a loaded machine.
_SILENT = timedelta(seconds=2)


def _backing_off(attempts: int, longest: timedelta) -> RetryPolicy:
    """The first retry at once (0.1 s), then each wait four times the last, up to `longest`;
    `attempts` 0: no count, for an activity that is safe to repeat and bounded by its
    schedule-to-close time instead. Every killed worker costs its activity an attempt: the
    soak killed the worker running one check six times in a row (its six attempts in 32 s),
    and the run failed for what was only its workers dying."""
    return RetryPolicy(
        initial_interval=timedelta(milliseconds=100),
        backoff_coefficient=4.0,
        maximum_interval=longest,
        maximum_attempts=attempts,
        non_retryable_error_types=_NON_RETRYABLE,
    )


# It heartbeats like every activity: without a heartbeat timeout, a worker killed while it
# copied the fixture held the run for the whole two minutes (the soak's "two-minute stalls").
# Safe to repeat (a copy, then an atomic rename): retried for ten minutes, however often.
PREPARE = ActivityOptions(
    start_to_close=timedelta(minutes=2),
    heartbeat=_SILENT,
    retry=_backing_off(0, timedelta(seconds=5)),
    schedule_to_close=timedelta(minutes=10),
)

# Backoffs of 0.1, 0.4, 1.6 and 6.4 s: a model server restarting has about 8 s to come back.
# A model call keeps its count: an attempt that reached a provider may have cost tokens (so a
# call whose worker is killed five times in a row fails the run).
MODEL = ActivityOptions(
    start_to_close=timedelta(minutes=5),
    heartbeat=_SILENT,
    retry=_backing_off(5, timedelta(seconds=30)),
)

# Verification is short, deterministic work on the worker: a local activity.
VERIFY = ActivityOptions(
    start_to_close=timedelta(seconds=30),
    retry=RetryPolicy(maximum_attempts=3, non_retryable_error_types=_NON_RETRYABLE),
)

# Commands may run up to 10 minutes (the run_command tool's own limit). A service a tool acts
# on may be down for a while: retried for 20 minutes, however often, safe under the
# idempotency key (a retry returns the recorded effect, or asks the service before acting).
EXECUTE = ActivityOptions(
    start_to_close=timedelta(minutes=11),
    heartbeat=_SILENT,
    retry=_backing_off(0, timedelta(seconds=15)),
    schedule_to_close=timedelta(minutes=20),
)

# A read-only tool reads the workspace in-process: bounded output, milliseconds (a local
# activity). A transient fault (an injected one) is retried at once, like a remote one.
READ = ActivityOptions(
    start_to_close=timedelta(seconds=30),
    retry=_backing_off(5, timedelta(seconds=5)),
)

# A tool call and the check after it, in one activity (activities/fused.py): the time of both,
# and the call's retries (a retry repeats no effect: the call's idempotency key; a check only reads).
EXECUTE_AND_CHECK = ActivityOptions(
    start_to_close=EXECUTE.start_to_close + timedelta(minutes=15),
    heartbeat=_SILENT,
    retry=EXECUTE.retry,
    schedule_to_close=timedelta(minutes=40),
)

# Closing a step (git checkpoint + ledger fsync) and ledger appends: short local activities.
RECORD = ActivityOptions(
    start_to_close=timedelta(seconds=60),
    retry=RetryPolicy(maximum_attempts=5, non_retryable_error_types=_NON_RETRYABLE),
)

# A check only reads, so retrying it is always safe; its attempts are mostly lost to workers
# that died under it. Retried for 20 minutes, however often (a service that does not answer is
# retried, never judged), with backoffs of 0.1, 0.4, 1.6, 6.4 s, then every 10 s.
CHECK = ActivityOptions(
    start_to_close=timedelta(minutes=15),
    heartbeat=_SILENT,
    retry=_backing_off(0, timedelta(seconds=10)),
    schedule_to_close=timedelta(minutes=20),
)


def for_model(retries: RetryBudget | None) -> ActivityOptions:
    """A model call's options under a run's retry budget (RunRequest.retries; None: MODEL's own)."""
    return MODEL if retries is None else replace(MODEL, retry=_budgeted(retries, retries.model_attempts))


def for_tool(opts: ActivityOptions, retries: RetryBudget | None) -> ActivityOptions:
    """A tool call's options (EXECUTE_AND_CHECK, READ) under a run's retry budget: counted
    attempts instead of retrying for minutes, as the baseline counts them."""
    return opts if retries is None else replace(opts, retry=_budgeted(retries, retries.tool_attempts))


def _budgeted(retries: RetryBudget, attempts: int) -> RetryPolicy:
    return RetryPolicy(
        initial_interval=timedelta(seconds=retries.initial_backoff_s),
        backoff_coefficient=retries.backoff_coefficient,
        maximum_interval=timedelta(seconds=retries.max_backoff_s),
        maximum_attempts=attempts,
        non_retryable_error_types=_NON_RETRYABLE,
    )
