"""A span per agent step, through the OpenTelemetry API alone.

Where the worker traces (`python worker.py --traces ...`: the SDK's OpenTelemetryPlugin with its
replay-safe tracer provider), each step is a span under the run's `RunWorkflow` span, and the
activities the step schedules (propose, verify, execute, check, record) are its children:
their `StartActivity` spans open inside it and carry its context to the worker that runs them.
Replays start no duplicate spans: the plugin's provider draws span ids from the workflow's
seeded random and ends no span while replaying. Where nothing traces, the API's global tracer is
a no-op, so the workflow's commands, and its replays, are the same either way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from opentelemetry import trace

    from contracts import Subtask

_TRACER_NAME = "agent_lab.workflow"


@contextmanager
def step_span(run_id: str, subtask: Subtask, step: int) -> Iterator[None]:
    # The tracer is looked up per step, not at import: a provider set after the workflow module
    # was first imported (a test, a worker configuring tracing late) is still the one used.
    tracer = trace.get_tracer(_TRACER_NAME)
    attributes = {"agent_lab.run_id": run_id, "agent_lab.task": subtask.id, "agent_lab.step": step}
    with tracer.start_as_current_span(f"step {step}", attributes=attributes):
        yield


def note_step_end(outcome: str, tool: str | None, reason: str) -> None:
    """How the current step ended, on its span: committed or rejected, the tool, and why."""
    span = trace.get_current_span()
    span.set_attribute("agent_lab.outcome", outcome)
    if tool:
        span.set_attribute("agent_lab.tool", tool)
    span.set_attribute("agent_lab.said", reason[:200])
