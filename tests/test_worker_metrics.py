"""`python worker.py --metrics-port` serves the SDK's metrics and the lab's counters on one
Prometheus endpoint, scraped here during and after a durable run; a port in use is one line."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

import httpx
import pytest
from temporalio.common import MetricMeter
from temporalio.testing import WorkflowEnvironment

from agent.tools.registry import TOOLS
from contracts import ActionProposal, ProposeActionResult, RunState, ToolResult, Verdict
from contracts.envelopes import (
    AppendLedgerInput,
    AppendLedgerResult,
    ExecutedAndChecked,
    RecordedThenProposed,
    VerifiedRead,
)
from contracts.errors import SettingsError
from contracts.ledger import EventType, LedgerEntry
from contracts.usage import Usage
from host import settings
from host.metrics import (
    APPROVALS,
    EFFECTS,
    MODEL_COST,
    MODEL_TOKENS,
    PROPOSALS,
    TOOL_CALLS,
    VERDICTS,
    count,
    runtime_with_metrics,
)
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from tests.conftest import free_port
from tests.worker_process import start_worker_process

EFFECT_TOOL = next(name for name, tool in TOOLS.items() if tool.external_effects)


@dataclass
class FakeMeter:
    added: list[tuple[str, int, dict[str, Any]]] = field(default_factory=list)

    def create_counter(self, name: str, description: str | None = None, unit: str | None = None) -> FakeCounter:
        return FakeCounter(self, name)


@dataclass
class FakeCounter:
    meter: FakeMeter
    name: str

    def add(self, value: int, additional_attributes: dict[str, Any] | None = None) -> None:
        self.meter.added.append((self.name, value, dict(additional_attributes or {})))


def test_each_result_is_counted_by_what_it_says() -> None:
    meter = FakeMeter()
    usage = Usage(input_tokens=120, output_tokens=30, cost_usd=0.0015, provider="scripted", model="m")
    proposal = ActionProposal(kind="tool_call", tool="read_file", arguments={"path": "a.py"}, thought="look")
    proposed = ProposeActionResult(proposal=proposal, usage=usage, failed_attempts=Usage(input_tokens=5))
    allow = Verdict(decision="allow", reason_code="allowed")
    effect = ToolResult(tool=EFFECT_TOOL, ok=True, idempotency_key="k1", replayed=True)
    write = ToolResult(tool="write_file", ok=True, idempotency_key="k2")
    for result in (
        RecordedThenProposed(proposed=proposed),
        VerifiedRead(verdict=allow, result=ToolResult(tool="read_file", ok=True)),
        Verdict(decision="reject", reason_code="destructive_command"),
        ExecutedAndChecked(result=effect),
        ExecutedAndChecked(result=write),
        "an activity's other result",
    ):
        count(cast(MetricMeter, meter), result)
    assert meter.added == [
        ("agent_lab_proposals", 1, {"kind": "read_file"}),
        ("agent_lab_model_tokens", 125, {"provider": "scripted", "model": "m", "direction": "input"}),
        ("agent_lab_model_tokens", 30, {"provider": "scripted", "model": "m", "direction": "output"}),
        ("agent_lab_model_cost_microusd", 1500, {"provider": "scripted", "model": "m"}),
        ("agent_lab_verdicts", 1, {"decision": "allow", "reason_code": "allowed"}),
        ("agent_lab_tool_calls", 1, {"tool": "read_file", "ok": "true"}),
        ("agent_lab_verdicts", 1, {"decision": "reject", "reason_code": "destructive_command"}),
        ("agent_lab_tool_calls", 1, {"tool": EFFECT_TOOL, "ok": "true"}),
        ("agent_lab_effects", 1, {"tool": EFFECT_TOOL, "how": "replayed"}),
        # A write in the workspace is a tool call, not an external effect.
        ("agent_lab_tool_calls", 1, {"tool": "write_file", "ok": "true"}),
    ]


def test_approvals_are_counted_once_from_the_ledger_events_that_record_them() -> None:
    meter = FakeMeter()
    at = datetime(2026, 12, 2, tzinfo=UTC)

    def append(kind: EventType, **payload: Any) -> AppendLedgerInput:
        entry = LedgerEntry(event_id=f"r1/step-3/{kind}", type=kind, run_id="r1", time=at, step=3, payload=payload)
        return AppendLedgerInput(run_id="r1", entries=[entry])

    appended, held = (
        AppendLedgerResult(appended=1, skipped=0, last_seq=9, last_hash="h"),
        AppendLedgerResult(appended=0, skipped=1, last_seq=9, last_hash="h"),
    )
    requested = append("approval_requested")
    count(cast(MetricMeter, meter), appended, [requested])
    count(cast(MetricMeter, meter), held, [requested])  # the same append again (a replay): held already
    count(cast(MetricMeter, meter), appended, [append("approval_decided", decision={"approved": True})])
    count(cast(MetricMeter, meter), appended, [append("approval_decided", decision={"approved": False})])
    count(cast(MetricMeter, meter), appended, [append("commit")])
    assert meter.added == [
        ("agent_lab_approvals", 1, {"event": "requested"}),
        ("agent_lab_approvals", 1, {"event": "approved"}),
        ("agent_lab_approvals", 1, {"event": "denied"}),
    ]


def test_a_metrics_port_in_use_is_one_line_and_exit_2() -> None:
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SettingsError, match=f"the metrics port {port} is in use"):
            runtime_with_metrics(range(port, port + 1))
        env = {key: value for key, value in os.environ.items() if not key.startswith("TEMPORAL_")}
        done = subprocess.run(
            [sys.executable, "worker.py", "--metrics-port", str(port)],
            cwd=PROJECT_ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        f"error: the metrics port {port} is in use (Address already in use): choose another"
    ]
    assert done.stdout == ""


def _taken_port_before_a_free_one() -> socket.socket:
    """A listening socket on a port whose next port is free."""
    while True:
        taken = socket.socket()
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        with socket.socket() as probe:
            try:
                probe.bind(("0.0.0.0", taken.getsockname()[1] + 1))
                return taken
            except OSError:
                taken.close()


def test_a_range_of_metrics_ports_takes_its_first_free_one() -> None:
    """Worker replicas that share a network namespace (compose's workers share the operations
    service's) are each given the same range and each take a port of their own."""
    with _taken_port_before_a_free_one() as taken:
        port = taken.getsockname()[1]
        runtime, serving = runtime_with_metrics(range(port, port + 2))
        assert serving == port + 1
        with pytest.raises(SettingsError) as error:
            runtime_with_metrics(range(port, port + 2))  # now both are taken
        assert str(error.value) == (
            f"the metrics ports {port}-{port + 1} are all in use (Address already in use): choose others"
        )
        del runtime


@pytest.mark.parametrize(
    ("given", "expected"),
    [("9464", range(9464, 9465)), ("9464-9473", range(9464, 9474)), (" 9464-9464 ", range(9464, 9465))],
)
def test_metrics_ports_are_a_port_or_a_range(given: str, expected: range) -> None:
    assert settings.metrics_ports(given) == expected


@pytest.mark.parametrize("given", ["http", "9464-", "-9464", "9473-9464", "0", "9464-70000", "94 64"])
def test_a_bad_metrics_port_is_one_clear_error(given: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(SettingsError, match=r"^--metrics-port must be "):
        settings.metrics_ports(given)
    monkeypatch.setenv("AGENT_LAB_METRICS_PORT", given)
    with pytest.raises(SettingsError, match=r"^AGENT_LAB_METRICS_PORT must be "):
        settings.metrics_ports()


def scraped(text: str, name: str, **labels: str) -> float:
    """The sum of a metric's samples whose labels include `labels`."""
    total = 0.0
    for line in text.splitlines():
        match = re.match(rf"^{name}(?:\{{(.*)\}})? (\S+)$", line)
        if match and all(f'{key}="{value}"' in (match.group(1) or "") for key, value in labels.items()):
            total += float(match.group(2))
    return total


@pytest.mark.timeout(120)
async def test_a_run_shows_on_the_metrics_endpoint(dev_env: WorkflowEnvironment) -> None:
    port = free_port()
    address = dev_env.client.service_client.config.target_host
    process, ready = await start_worker_process(address, "--metrics-port", str(port))
    try:
        assert f"metrics at http://0.0.0.0:{port}/metrics" in ready, ready
        handle = await start_durable_run(dev_env.client, build_request(load_task("small-off-by-one"), "durable"))
        result = await handle.result()
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"http://127.0.0.1:{port}/metrics", timeout=10)).text
    finally:
        process.kill()
        await process.wait()
    assert result.outcome == RunState.COMPLETED, result.reason
    # The SDK's own, from the same runtime.
    assert scraped(text, "temporal_activity_execution_latency_count") > 0, text[:2000]
    assert scraped(text, "temporal_workflow_completed") >= 1
    # The lab's: every step proposed, verified and (its tools) run; the scripted model's tokens.
    assert scraped(text, "agent_lab_proposals") == len(result.steps)
    assert scraped(text, "agent_lab_verdicts", decision="allow") >= 1
    assert scraped(text, "agent_lab_tool_calls", ok="true") >= 1
    assert scraped(text, "agent_lab_effects") == 0  # a coding task acts only in its workspace
    assert scraped(text, "agent_lab_model_tokens", direction="input", provider="scripted") > 0
    # The Grafana dashboard asks only for what the endpoint serves: the SDK's, seen here.
    for name in dashboard_metrics():
        if name.startswith("temporal_"):
            assert re.search(rf"^{name}[{{ ]", text, re.MULTILINE), f"the dashboard asks for {name}, not served"


def dashboard_metrics() -> set[str]:
    """Every metric deploy/grafana-dashboard.json queries."""
    dashboard = json.loads((PROJECT_ROOT / "deploy" / "grafana-dashboard.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    return {name for expr in exprs for name in re.findall(r"\b(?:agent_lab|temporal)_[a-z_]+", expr)}


def test_the_dashboard_asks_only_for_the_lab_counters_that_exist() -> None:
    lab = {name for name in dashboard_metrics() if name.startswith("agent_lab_")}
    made = {PROPOSALS, VERDICTS, TOOL_CALLS, EFFECTS, MODEL_TOKENS, MODEL_COST, APPROVALS}
    assert lab == made, lab ^ made
