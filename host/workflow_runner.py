"""The lab's workflow runner: the SDK's sandbox, without a cost per payload that the lab's data
converter has no use for.

For every payload of every activation and completion (three passes over each, both ways) the
SDK asks the workflow instance which serialization context and which storage context the
payload belongs to. In the sandbox each question compiles and runs a snippet of code inside it
(`exec` under the sandbox's importer), and an activity's context then rebuilds the data
converter. Sampled on a reading step, that was about a fifth of the worker's CPU: ~7 ms a step
(docs/performance.md, "Where a durable step's time goes").

The lab's converter (host/converter.py) is context-free: Pydantic JSON, no codec, a storage
driver that names a payload by its content. A payload becomes the same bytes whatever context
it is given (tests/test_workflow_runner.py checks it), so this runner's instances answer both
questions with the workflow's own context, from outside the sandbox. Workflow code still runs
in the sandbox, with every restriction it has; only those two answers change.
"""

from __future__ import annotations

import dataclasses

import temporalio.bridge.proto.workflow_activation
import temporalio.bridge.proto.workflow_completion
from temporalio import workflow
from temporalio.converter import (
    DataConverter,
    SerializationContext,
    StorageDriverStoreContext,
    StorageDriverWorkflowInfo,
    WorkflowSerializationContext,
)
from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner

from host.converter import is_lab_converter

Activation = temporalio.bridge.proto.workflow_activation.WorkflowActivation
Completion = temporalio.bridge.proto.workflow_completion.WorkflowActivationCompletion


class _WorkflowContextInstance(WorkflowInstance):
    """A sandboxed workflow instance whose payloads all take the workflow's own contexts."""

    def __init__(self, sandboxed: WorkflowInstance, info: workflow.Info) -> None:
        self._sandboxed = sandboxed
        self._serialization = WorkflowSerializationContext(namespace=info.namespace, workflow_id=info.workflow_id)
        self._storage = StorageDriverStoreContext(
            target=StorageDriverWorkflowInfo(
                id=info.workflow_id, run_id=info.run_id, type=info.workflow_type, namespace=info.namespace
            )
        )

    def activate(self, act: Activation) -> Completion:
        return self._sandboxed.activate(act)

    def get_serialization_context(self, command_info: object) -> SerializationContext | None:
        return self._serialization

    def get_external_store_context(self, command_info: object) -> StorageDriverStoreContext:
        return self._storage

    def get_info(self) -> workflow.Info:
        return self._sandboxed.get_info()

    def get_thread_id(self) -> int | None:
        # The deadlock detector reads the stuck thread's frames through this.
        return self._sandboxed.get_thread_id()


@dataclasses.dataclass(frozen=True)
class WorkflowContextRunner(SandboxedWorkflowRunner):
    """SandboxedWorkflowRunner whose instances give every payload the workflow's contexts."""

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _WorkflowContextInstance(super().create_instance(det), det.info)


def runner_for(converter: DataConverter) -> WorkflowRunner:
    """The runner for a worker whose client converts with `converter`: the lab's runner for the
    lab's context-free converter, the SDK's own sandbox for any other (a codec that signs
    payloads per activity, say, needs each payload's real context)."""
    return WorkflowContextRunner() if is_lab_converter(converter) else SandboxedWorkflowRunner()
