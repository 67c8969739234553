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
          ├── ProviderUnavailable   transient: Temporal (or the baseline) retries
          └── ScriptError           a scripted provider's script does not fit (non-retryable)

`to_application_error` converts at the activity boundary, so the workflow sees a typed
`ApplicationError` whose `type` is the class name and whose retryability is declared here.
"""

from __future__ import annotations

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


class ScriptError(ProviderError):
    pass


def to_application_error(error: LabError) -> ApplicationError:
    usage = getattr(error, "usage", None)
    details = [usage.model_dump(mode="json")] if usage is not None else []
    return ApplicationError(str(error), *details, type=type(error).__name__, non_retryable=not error.retryable)
