"""Errors raised inside activities, and how each one reaches Temporal.

    LabError
     ├── WorkspaceError      a fixture could not be copied into a workspace (non-retryable)
     ├── ToolError           a tool could not do what was asked; becomes a failed ToolResult
     │    └── InvalidPath          a path no tool may use (NUL byte, symlink loop, ...)
     │         └── PathOutsideWorkspace
     ├── ToolUnavailable     the system a tool acts on did not answer (retryable: the same
     │                       idempotency key makes the retry safe)
     ├── SandboxError        the configured sandbox cannot run here (non-retryable)
     ├── LedgerCorrupt       a run's ledger fails its hash chain; nothing is appended on top
     │                       of it (non-retryable: a person must look)
     └── ProviderError       a model provider failed
          ├── ProviderUnavailable   transient: Temporal (or the baseline) retries, after the
          │                         server's `retry_after_s` when it named one (a 429)
          ├── ProviderRequestError  the server refused the request itself (400, 404, 422, a 5xx
          │                         that says the request is invalid, a missing cassette entry):
          │                         the same request would fail again (non-retryable)
          ├── ProviderAuthError     no API key, or the server refused it (401, 403) (non-retryable)
          └── ScriptError           a scripted provider's script does not fit (non-retryable)

`to_application_error` converts at the activity boundary, so the workflow sees a typed
`ApplicationError` whose `type` is the class name and whose retryability is declared here.
"""

from __future__ import annotations

from datetime import timedelta

from temporalio.exceptions import ApplicationError

from contracts.usage import Usage


class LabError(Exception):
    retryable = False


class WorkspaceError(LabError):
    pass


class ToolError(LabError):
    pass


class InvalidPath(ToolError):
    pass


class PathOutsideWorkspace(InvalidPath):
    pass


class ToolUnavailable(LabError):
    retryable = True


class SandboxError(LabError):
    pass


class LedgerCorrupt(LabError):
    pass


class ProviderError(LabError):
    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        # What the failed attempt cost anyway (tokens sent, time waited).
        self.usage = usage


class ProviderUnavailable(ProviderError):
    retryable = True

    def __init__(self, message: str, usage: Usage | None = None, retry_after_s: float | None = None) -> None:
        super().__init__(message, usage)
        # How long the server asked to be left alone (a 429's retry-after), if it said.
        self.retry_after_s = retry_after_s


class ProviderRequestError(ProviderError):
    pass


class ProviderAuthError(ProviderError):
    pass


class ScriptError(ProviderError):
    pass


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
