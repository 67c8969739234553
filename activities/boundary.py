"""Where the agent core meets Temporal: a core error becomes an ApplicationError of the same
type name and retryability (declared once, on the classes of `contracts.errors`), a failed
model attempt's cost is recorded for the attempt that succeeds, and long calls heartbeat."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

from temporalio.exceptions import ApplicationError

from activities import attempt_usage
from activities.heartbeat import heartbeating
from contracts.errors import LabError, ProviderUnavailable


@contextlib.asynccontextmanager
async def activity_boundary(attempts: Path, *, heartbeat: bool = True) -> AsyncIterator[None]:
    """The body of every activity: heartbeats while it runs (unless it is short), and the one
    place where a LabError leaves as an ApplicationError. `attempts`: where a failed attempt's
    cost is kept (agent.dependencies.Dependencies.attempts)."""
    try:
        if heartbeat:
            async with heartbeating():
                yield
        else:
            yield
    except LabError as error:
        usage = getattr(error, "usage", None)
        if usage is not None:
            # Temporal keeps no result of a failed attempt: its cost is kept here instead.
            await attempt_usage.record_failed(attempts, usage)
        raise to_application_error(error) from None


def to_application_error(error: LabError) -> ApplicationError:
    usage = getattr(error, "usage", None)
    details = [usage.model_dump(mode="json")] if usage is not None else []
    # A server that says when to come back (a 429's retry-after) overrides the retry policy's
    # backoff for this one retry.
    retry_after_s = error.retry_after_s if isinstance(error, ProviderUnavailable) else None
    delay = timedelta(seconds=retry_after_s) if error.retryable and retry_after_s else None
    return ApplicationError(
        str(error), *details, type=type(error).__name__, non_retryable=not error.retryable, next_retry_delay=delay
    )
