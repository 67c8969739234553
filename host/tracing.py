"""Opt-in OpenTelemetry traces for a worker: `--traces console|otlp` (AGENT_LAB_TRACES).

A run is a `RunWorkflow` span, each agent step a span in it (workflows/tracing.py), and each
activity the step schedules a `StartActivity` span there with its `RunActivity` span, on
whichever worker ran it, underneath. The SDK's OpenTelemetryPlugin carries the context through
activity headers; its replay-safe tracer provider keeps replays from starting spans twice.

`otlp` sends them over OTLP/HTTP to OTEL_EXPORTER_OTLP_ENDPOINT (the exporter reads the standard
OTEL_* variables: endpoint, headers, timeout), e.g. to a Jaeger or Grafana Tempo collector on
port 4318. The SDK and exporter are the `otel` extra: `uv sync --extra otel`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from contracts.errors import SettingsError

if TYPE_CHECKING:
    from opentelemetry.sdk.trace.export import SpanExporter
    from temporalio.plugin import SimplePlugin

SERVICE_NAME = "agent-lab-worker"


class Tracing:
    """The plugin a client takes; `flush` sends what is buffered, `shutdown` also stops."""

    def __init__(self, plugin: SimplePlugin, flush: Callable[[], bool], shutdown: Callable[[], None]) -> None:
        self.plugin = plugin
        self.flush = flush
        self.shutdown = shutdown


def start_tracing(exporter: str) -> Tracing | None:
    """Set the process's tracer provider for `exporter` ('console', 'otlp'; 'off': None).
    Raises SettingsError, one line, where the `otel` extra is missing."""
    if exporter == "off":
        return None
    return tracing_to(_exporter(exporter))


def tracing_to(exporter: SpanExporter) -> Tracing:
    """Traces to any span exporter (the tests give an in-memory one)."""
    import opentelemetry.trace
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from temporalio.contrib.opentelemetry import OpenTelemetryPlugin, create_tracer_provider

    # The worker leaves with os._exit (worker.py): `shutdown` flushes, not an atexit hook.
    provider = create_tracer_provider(resource=Resource.create({"service.name": SERVICE_NAME}), shutdown_on_exit=False)
    provider.add_span_processor(BatchSpanProcessor(exporter))
    opentelemetry.trace.set_tracer_provider(provider)
    # add_temporal_spans: the RunWorkflow, StartActivity and RunActivity spans a step's span
    # holds; without them only the workflow's own spans would be recorded.
    return Tracing(OpenTelemetryPlugin(add_temporal_spans=True), provider.force_flush, provider.shutdown)


def _exporter(name: str) -> SpanExporter:
    try:
        if name == "console":
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter

            return ConsoleSpanExporter(service_name=SERVICE_NAME)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        return OTLPSpanExporter()
    except ImportError as missing:
        raise SettingsError(
            f"--traces {name} needs the OpenTelemetry SDK and exporter ({missing.name} is not installed): "
            "`uv sync --extra otel`"
        ) from None
