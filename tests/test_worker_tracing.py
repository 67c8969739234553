"""Traces: with the worker's tracing on, a run is a RunWorkflow span, each step a span in it,
and each activity the step scheduled a StartActivity span in the step with its RunActivity span
(where the activity ran) underneath; a worker that replays every task starts no span twice."""

from __future__ import annotations

import asyncio
import http.server
import os
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from typing import ClassVar

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

import settings
from contracts import RunState
from contracts.errors import SettingsError
from host.build import build_worker
from host.tracing import Tracing, start_tracing, tracing_to
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from tests.runs import execute_run
from tests.worker_process import start_worker_process

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def traced() -> Iterator[tuple[Tracing, InMemorySpanExporter]]:
    # The process's tracer provider can be set once: one for the whole module.
    exporter = InMemorySpanExporter()
    tracing = tracing_to(exporter)
    yield tracing, exporter
    tracing.shutdown()


def _children(spans: list[ReadableSpan], parent: ReadableSpan) -> list[ReadableSpan]:
    return [s for s in spans if s.parent is not None and s.parent.span_id == parent.context.span_id]


async def test_a_run_is_traced_step_by_step_with_its_activities(
    client: Client,
    task_queue: str,
    traced: tuple[Tracing, InMemorySpanExporter],
    worker_options: dict[str, object],
) -> None:
    tracing, exporter = traced
    exporter.clear()
    config = client.config()
    config["plugins"] = [tracing.plugin]
    traced_client = Client(**config)
    request = build_request(load_task("rename-refactor"), "durable")
    async with build_worker(traced_client, task_queue, **worker_options):
        result = await execute_run(traced_client, request, task_queue)
    assert result.outcome == RunState.COMPLETED, result.reason
    tracing.flush()
    spans = [
        s
        for s in exporter.get_finished_spans()
        if s.attributes.get("temporalWorkflowID") == request.run_id
        or s.attributes.get("agent_lab.run_id") == request.run_id
    ]

    (workflow_span,) = [s for s in spans if s.name == "RunWorkflow:AgentRunWorkflow"]
    steps = sorted((s for s in spans if s.name.startswith("step ")), key=lambda s: s.attributes["agent_lab.step"])
    # One span a step, however often the worker replayed the run.
    assert [s.attributes["agent_lab.step"] for s in steps] == list(range(1, len(result.steps) + 1))
    assert Counter(s.name for s in steps).most_common(1)[0][1] == 1
    for step, recorded in zip(steps, result.steps, strict=True):
        assert step.parent is not None and step.parent.span_id == workflow_span.context.span_id
        assert step.context.trace_id == workflow_span.context.trace_id
        assert step.attributes["agent_lab.outcome"] == recorded.outcome
        scheduled = [s for s in _children(spans, step) if s.name.startswith("StartActivity:")]
        assert scheduled, f"{step.name} scheduled no activity"
        for start in scheduled:
            activity = start.name.removeprefix("StartActivity:")
            ran = [s.name for s in _children(spans, start)]
            assert f"RunActivity:{activity}" in ran, (step.name, start.name, ran)
    proposing = [s for s in spans if s.name.startswith("RunActivity:") and "propos" in s.name]
    assert len(proposing) >= len(steps)


def test_tracing_without_its_extra_is_one_clear_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """`--traces otlp` where the exporter is not installed: one line naming the extra."""
    monkeypatch.setitem(sys.modules, "opentelemetry.exporter.otlp.proto.http.trace_exporter", None)
    with pytest.raises(SettingsError) as error:
        start_tracing("otlp")
    assert str(error.value) == (
        "--traces otlp needs the OpenTelemetry SDK and exporter "
        "(opentelemetry.exporter.otlp.proto.http.trace_exporter is not installed): `uv sync --extra otel`"
    )


def test_a_bad_traces_setting_stops_the_worker_with_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "worker.py"],
        cwd=settings.PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "AGENT_LAB_TRACES": "jaeger", "TEMPORAL_ADDRESS": "127.0.0.1:9"},
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == ["error: AGENT_LAB_TRACES must be off, console or otlp, not 'jaeger'"]


class _Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP collector that keeps what it is sent."""

    received: ClassVar[list[bytes]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.path == "/v1/traces":
            type(self).received.append(body)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.extra("otel")
async def test_a_worker_sends_its_spans_over_otlp(dev_env: WorkflowEnvironment) -> None:
    """The production path: `python worker.py --traces otlp` exports to the collector at
    OTEL_EXPORTER_OTLP_ENDPOINT, and a stopped worker flushes what it still holds."""
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

    collector = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{collector.server_address[1]}"
    address = dev_env.client.service_client.config.target_host
    process, ready = await start_worker_process(
        address, "--traces", "otlp", env={"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}
    )
    try:
        assert "traces to otlp" in ready, ready
        request = build_request(load_task("small-off-by-one"), "durable")
        result = await (await start_durable_run(dev_env.client, request)).result()
    finally:
        process.send_signal(signal.SIGTERM)
        await asyncio.wait_for(process.wait(), timeout=60)
        collector.shutdown()
        collector.server_close()
    names: list[str] = []
    for body in _Collector.received:
        export = ExportTraceServiceRequest.FromString(body)
        names += [span.name for spans in export.resource_spans for scope in spans.scope_spans for span in scope.spans]
    assert "RunWorkflow:AgentRunWorkflow" in names, names
    assert sorted(name for name in names if name.startswith("step ")) == sorted(
        f"step {number}" for number in range(1, len(result.steps) + 1)
    )
