"""Errors raised inside activities, and how each one reaches Temporal.

    LabError
     ├── WorkspaceError      a fixture could not be copied into a workspace (non-retryable)
     ├── ToolError           a tool could not do what was asked; becomes a failed ToolResult
     │    └── InvalidPath          a path no tool may use (NUL byte, symlink loop, ...)
     │         └── PathOutsideWorkspace
     ├── ToolUnavailable     the system a tool acts on did not answer (retryable: the same
     │                       idempotency key makes the retry safe)
     ├── SandboxError        the configured sandbox cannot run here (non-retryable)
     └── ProviderError       a model provider failed
          ├── ProviderUnavailable   transient: Temporal (or the baseline) retries
          └── ScriptError           a scripted provider's script does not fit (non-retryable)

`to_application_error` converts at the activity boundary, so the workflow sees a typed
`ApplicationError` whose `type` is the class name and whose retryability is declared here.
"""

from __future__ import annotations

from temporalio.exceptions import ApplicationError


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


class ProviderError(LabError):
    pass


class ProviderUnavailable(ProviderError):
    retryable = True


class ScriptError(ProviderError):
    pass


def to_application_error(error: LabError) -> ApplicationError:
    return ApplicationError(str(error), type=type(error).__name__, non_retryable=not error.retryable)
