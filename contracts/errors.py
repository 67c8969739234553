"""Every error the lab raises on purpose, in one tree. `retryable` says whether trying again
can help; everything else about an error's handling follows from where it sits here.

    LabError
     ├── BadInput                input a person must fix: told before anything runs, exit 2
     │                           (a file's several problems a line each: contracts/problems.py)
     │    ├── SettingsError      an environment variable the lab cannot use
     │    ├── TaskError          a task that cannot be found, or whose spec or script is malformed
     │    ├── ScriptInvalid      a script that is not valid YAML or does not fit the schema
     │    ├── ConfigError        an experiment config that cannot be run
     │    ├── ReportError        an experiment report that cannot be found or read
     │    └── StarterError       anything else a command refuses (a missing model file, a server
     │                           that does not answer, a run that is not waiting)
     ├── InfrastructureError     the lab's own machinery (a service it starts) did not come up
     ├── WorkspaceError          a fixture could not be copied into a workspace
     │    └── WalkTooLong        the host could not walk or read a workspace within its
     │                           deadline (too many files or bytes: agent.hostile_tree)
     ├── CheckpointError         a workspace's checkpoint repository is missing or broken
 │    └── MergeConflict      a subtask's work does not merge into its parent's workspace
 │                           (fed back to planning: the run drafts its plan again)
     ├── ArtifactMissing         content passed by reference is not in this worker's artifact
     │                           store (retryable: a worker that shares the store has it)
     ├── ToolError               a tool could not do what was asked: a failed ToolResult
     │    ├── InvalidPath        a path no tool may use (NUL byte, symlink loop, ...)
     │    │    └── PathOutsideWorkspace
     │    ├── NotRegularFile     a FIFO, device, socket, directory or symlink where a file was
     │    │                      to be read: refused, never opened (agent.hostile_tree)
     │    ├── TextNotFound       an edit's text is not in the file (the message shows the
     │    │                      nearest match, so the model can correct itself)
     │    └── SyntaxCheckFailed  an edit would leave a Python file that does not compile:
     │                           refused, the file left as it was
     ├── ToolUnavailable         the system a tool acts on did not answer (retryable: the
     │                           same idempotency key makes the retry safe)
     ├── SandboxUnavailable      the configured sandbox cannot run commands here
     ├── LedgerCorrupt           a run's ledger fails its hash chain; nothing is appended on
     │                           top of it (a person must look)
     ├── IllegalTransition       the state machine was asked for a move its table forbids
     └── ProviderError           a model provider failed
          ├── ProviderUnavailable   transient: retried, after the server's `retry_after_s`
          │                         when it named one (a 429)
          ├── ProviderRequestError  the server refused the request itself (400, 404, 422, a
          │                         5xx that says the request is invalid, a missing cassette
          │                         entry): the same request would fail again
          ├── ProviderAuthError     no API key, or the server refused it (401, 403)
          ├── ScriptError           a scripted provider's script does not fit the run
          └── UnusableAnswer        a model's answer that is not the JSON asked for (fed back
                                    to the model as a rejected step, never retried as is)

The Temporal activities turn a LabError into an `ApplicationError` whose type is the class
name and whose retryability is the class's (`activities/boundary.py`); the baseline retries
on `retryable` itself. The operations service's HTTP errors (`ops_service/errors.py`)
stay apart: they belong to a simulated external system, are answered as HTTP statuses, and
never leave its process.
"""

from __future__ import annotations

from contracts.usage import Usage


class LabError(Exception):
    retryable = False


class BadInput(LabError):
    pass


class SettingsError(BadInput):
    pass


class TaskError(BadInput):
    pass


class ScriptInvalid(BadInput):
    pass


class ConfigError(BadInput):
    pass


class ReportError(BadInput):
    pass


class StarterError(BadInput):
    pass


class InfrastructureError(LabError):
    pass


class PortTaken(InfrastructureError):
    """A server could not bind a port because another process took it first."""

    def __init__(self, port: int, said: str) -> None:
        super().__init__(said)
        self.port = port


class WorkspaceError(LabError):
    pass


class WalkTooLong(WorkspaceError):
    pass


class CheckpointError(LabError):
    pass


class MergeConflict(CheckpointError):
    pass


class ArtifactMissing(LabError):
    retryable = True


class ToolError(LabError):
    pass


class InvalidPath(ToolError):
    pass


class NotRegularFile(ToolError):
    pass


class PathOutsideWorkspace(InvalidPath):
    pass


class TextNotFound(ToolError):
    pass


class SyntaxCheckFailed(ToolError):
    pass


class ToolUnavailable(LabError):
    retryable = True


class SandboxUnavailable(LabError):
    pass


class LedgerCorrupt(LabError):
    pass


class IllegalTransition(LabError):
    def __init__(self, source: str, target: str) -> None:
        super().__init__(f"illegal transition {source} -> {target}")
        self.source = source
        self.target = target


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


class UnusableAnswer(ProviderError):
    pass


def lab_errors() -> list[type[LabError]]:
    """Every class of the tree, root first."""
    found: list[type[LabError]] = [LabError]
    for error in found:
        found.extend(error.__subclasses__())
    return found


def non_retryable_types() -> list[str]:
    """The type names an activity's retry policy never retries, derived from the tree."""
    return sorted(error.__name__ for error in lab_errors() if not error.retryable)
