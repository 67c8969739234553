"""A worker's metrics on a Prometheus endpoint: the SDK's own (task latencies, polls, slots,
failures) and the lab's counters beside them, counted from what each activity returned.

    python worker.py --metrics-port 9464     # then scrape http://HOST:9464/metrics
    python worker.py --metrics-port 9464-9473  # the first free: replicas on one host

The lab's counters come from one activity interceptor reading the typed results the activities
already return (a proposal and its usage, a verdict, a tool's result), so no activity carries
metric code and a result counted is a result the workflow saw. An activity retried is counted
per attempt that returned. Workflow code counts nothing: it stays free of side effects.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from typing import Any

from temporalio import activity
from temporalio.common import MetricMeter
from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig
from temporalio.worker import ActivityInboundInterceptor, ExecuteActivityInput, Interceptor

from agent.tools.registry import TOOLS
from contracts import ProposeActionResult, ToolResult, Verdict
from contracts.envelopes import (
    AppendLedgerInput,
    AppendLedgerResult,
    ExecutedAndChecked,
    RecordedThenProposed,
    VerifiedRead,
)
from contracts.errors import SettingsError
from contracts.usage import Usage

PROPOSALS = "agent_lab_proposals"
VERDICTS = "agent_lab_verdicts"
TOOL_CALLS = "agent_lab_tool_calls"
EFFECTS = "agent_lab_effects"
MODEL_TOKENS = "agent_lab_model_tokens"
MODEL_COST = "agent_lab_model_cost_microusd"
APPROVALS = "agent_lab_approvals"


def runtime_with_metrics(ports: range) -> tuple[Runtime, int]:
    """A runtime serving /metrics on every interface (a container's port is reached from outside
    it) at the first of `ports` free, and that port. None free is one clear error, before
    anything connects."""
    port = _first_free(ports)
    try:
        runtime = Runtime(telemetry=TelemetryConfig(metrics=PrometheusConfig(bind_address=f"0.0.0.0:{port}")))
    except Exception as error:  # the SDK's bridge says RuntimeError or ValueError, with its Rust chain
        raise SettingsError(f"the metrics endpoint could not start on port {port}: {error}") from None
    return runtime, port


def _first_free(ports: range) -> int:
    reason = ""
    for port in ports:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("0.0.0.0", port))
            except OSError as error:
                reason = error.strerror or str(error)
                continue
        return port
    if len(ports) == 1:
        raise SettingsError(f"the metrics port {ports[0]} is in use ({reason}): choose another")
    raise SettingsError(f"the metrics ports {ports[0]}-{ports[-1]} are all in use ({reason}): choose others")


class LabMetrics(Interceptor):
    """Counts what each activity returned on the worker's metric meter (a no-op without one)."""

    def intercept_activity(self, next: ActivityInboundInterceptor) -> ActivityInboundInterceptor:
        return _Counting(next)


class _Counting(ActivityInboundInterceptor):
    async def execute_activity(self, input: ExecuteActivityInput) -> Any:
        result = await super().execute_activity(input)
        count(activity.metric_meter(), result, input.args)
        return result


def count(meter: MetricMeter, result: object, arguments: Sequence[object] = ()) -> None:
    """The lab's counters for one activity's result (and, for a ledger append, what it
    appended); results of other kinds count nothing."""
    if isinstance(result, AppendLedgerResult) and arguments and isinstance(arguments[0], AppendLedgerInput):
        _count_approvals(meter, arguments[0], result)
    if isinstance(result, RecordedThenProposed):
        result = result.proposed
    if isinstance(result, ProposeActionResult):
        kind = "unusable" if result.proposal is None else result.proposal.tool or result.proposal.kind
        meter.create_counter(PROPOSALS, "model proposals, one a step, by tool or kind").add(1, {"kind": kind})
        _count_usage(meter, result.usage + result.failed_attempts)
    elif isinstance(result, VerifiedRead):
        _count_verdict(meter, result.verdict)
        if result.result is not None:
            _count_tool(meter, result.result)
    elif isinstance(result, Verdict):
        _count_verdict(meter, result)
    elif isinstance(result, ExecutedAndChecked):
        _count_tool(meter, result.result)
    elif isinstance(result, ToolResult):
        _count_tool(meter, result)


def _count_approvals(meter: MetricMeter, appended: AppendLedgerInput, result: AppendLedgerResult) -> None:
    """Approvals asked for and decided, from the ledger events that record them: those waiting
    are `requested` less `approved` and `denied`. An append the ledger already held (a replay, a
    retry) appended nothing and counts nothing, so each request and decision counts once."""
    if result.skipped:
        return
    approvals = meter.create_counter(APPROVALS, "approvals asked for and decided (waiting: requested - decided)")
    for entry in appended.entries:
        if entry.type == "approval_requested":
            approvals.add(1, {"event": "requested"})
        elif entry.type == "approval_decided":
            decision = entry.payload.get("decision")
            approved = isinstance(decision, dict) and decision.get("approved") is True
            approvals.add(1, {"event": "approved" if approved else "denied"})


def _count_verdict(meter: MetricMeter, verdict: Verdict) -> None:
    attributes = {"decision": verdict.decision, "reason_code": str(verdict.reason_code)}
    meter.create_counter(VERDICTS, "verifier verdicts, by decision and reason code").add(1, attributes)


def _count_tool(meter: MetricMeter, result: ToolResult) -> None:
    meter.create_counter(TOOL_CALLS, "tool calls that ran").add(1, {"tool": result.tool, "ok": str(result.ok).lower()})
    tool = TOOLS.get(result.tool)
    if tool is None or not tool.external_effects or not result.ok:
        return
    # An effect outside the workspace: made now, returned as recorded (a retry), or found in the
    # target system by the tool's probe.
    how = "replayed" if result.replayed else "recovered" if result.recovered else "made"
    meter.create_counter(EFFECTS, "external effects, by how the call got them").add(
        1, {"tool": result.tool, "how": how}
    )


def _count_usage(meter: MetricMeter, usage: Usage) -> None:
    model = {"provider": usage.provider or "unknown", "model": usage.model or "unknown"}
    tokens = meter.create_counter(MODEL_TOKENS, "model tokens, failed attempts included", "tokens")
    tokens.add(usage.input_tokens, {**model, "direction": "input"})
    tokens.add(usage.output_tokens, {**model, "direction": "output"})
    cost = round(usage.cost_usd * 1_000_000)
    meter.create_counter(MODEL_COST, "model cost in millionths of a dollar", "microusd").add(cost, model)
