"""How a run that did not complete its task ends: as a failed workflow, carrying its RunResult.

Temporal's Web UI lists a workflow as Completed or Failed and nothing finer, so a run that
returned its BUDGET_EXHAUSTED result would show as a green success. A run whose outcome is
not COMPLETED therefore fails the workflow with a non-retryable ApplicationError of type
`AgentRunNotCompleted`, whose first detail is the whole RunResult (docs/decisions/0003; runs
started before it returned it, on builds before docs/decisions/0006).
Clients read either ending the same way with `run_result`.
"""

from __future__ import annotations

from typing import Any

from temporalio.client import WorkflowFailureError, WorkflowHandle
from temporalio.exceptions import ApplicationError

from contracts import RunResult, RunState

NOT_COMPLETED = "AgentRunNotCompleted"


def not_completed(result: RunResult) -> ApplicationError:
    """The error a run that did not complete its task ends with (in workflow code)."""
    message = f"{result.outcome}: {result.reason}" if result.reason else str(result.outcome)
    return ApplicationError(message, result, type=NOT_COMPLETED, non_retryable=True)


async def run_result(handle: WorkflowHandle[Any, RunResult]) -> RunResult:
    """The run's result, whether it completed (returned) or not (failed with its result)."""
    try:
        return await handle.result()
    except WorkflowFailureError as error:
        result = result_of_failure(error)
        if result is None:
            raise
        return result


def result_of_failure(error: WorkflowFailureError) -> RunResult | None:
    """The RunResult a not-completed run failed with; None for any other failure (a bug, a
    termination, a timeout), which the caller reports as such."""
    cause = error.cause
    if not isinstance(cause, ApplicationError) or cause.type != NOT_COMPLETED or not cause.details:
        return None
    result = RunResult.model_validate(cause.details[0])
    if result.outcome == RunState.COMPLETED:
        return None
    return result
