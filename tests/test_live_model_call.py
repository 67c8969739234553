"""A model call in flight has a line of its own, in both runtimes: on a terminal one live line
updated in place and erased when the call ends; anywhere else a plain line once the call has run
a while, then seldom; a fast call (a scripted run's) nothing at all."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.api.common.v1 import ActivityType
from temporalio.api.enums.v1 import PendingActivityState
from temporalio.api.workflow.v1 import PendingActivityInfo
from temporalio.api.workflowservice.v1 import DescribeWorkflowExecutionResponse
from temporalio.testing import WorkflowEnvironment

from contracts import NoiseConfig, RunRequest, RunSnapshot, RunState, Usage
from contracts import activity_names as named
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from starter.baseline_run import run_baseline
from starter.connection import Connection
from starter.durable_run import run_durable, show_model_call
from starter.live_call import LivePace, ModelCallLine
from starter.render import Printer
from tests.lab_dependencies import lab_deps

TASK = "small-config-value"  # its first subtask: raise-timeout
# Every call shown at once, said once: a model that takes its time is played by the noisy
# wrapper's latency; the thresholds are a person's, shortened so the test need not wait 10 s.
EAGER = LivePace(show_after_s=0.0, first_s=0.0, again_s=600.0, tick_s=0.05)
LIVE_LINE = re.compile(r"^  model call for step 1 \((?P<what>[\w-]+)\): running \d+ s, ~\d+ tokens so far$", re.M)


def slow_request(runtime: str, latency_s: float) -> RunRequest:
    """One step of the task, whose model call takes `latency_s`."""
    request = build_request(load_task(TASK), runtime, max_steps=1)  # type: ignore[arg-type]
    provider = request.provider.model_copy(update={"noise": NoiseConfig(latency_s=latency_s)})
    return request.model_copy(update={"provider": provider})


def said_before_step_one(output: str) -> str:
    """The live line, which comes before the step line of the call it waited for."""
    live = LIVE_LINE.search(output)
    assert live is not None, output
    assert output.index(live.group(0)) < output.index("  step  1 "), output
    assert len(LIVE_LINE.findall(output)) == 1, output  # said once: the next is due in 600 s
    return live.group("what")


async def test_a_slow_model_call_of_the_baseline_has_its_line() -> None:
    output = io.StringIO()
    await run_baseline(slow_request("baseline", 1.0), Printer(output, pace=EAGER), lab_deps())
    # Named as the baseline's step line names it: by the task.
    assert said_before_step_one(output.getvalue()) == TASK


async def test_a_slow_model_call_of_a_durable_run_has_its_line(dev_env: WorkflowEnvironment) -> None:
    connection = Connection(dev_env.client, "dev", "http://ui", embedded=None, search_attributes=False)
    output = io.StringIO()
    await run_durable(connection, slow_request("durable", 1.0), Printer(output, pace=EAGER), lab_deps())
    # Read from the server's pending activities, as `watch` from another process reads it.
    assert said_before_step_one(output.getvalue()) == "raise-timeout"


@pytest.mark.parametrize("runtime", ["baseline", "durable"])
async def test_a_scripted_run_prints_no_such_line(runtime: str, dev_env: WorkflowEnvironment) -> None:
    output = io.StringIO()
    request = build_request(load_task(TASK), runtime)  # type: ignore[arg-type]
    if runtime == "baseline":
        result = await run_baseline(request, Printer(output), lab_deps())
    else:
        connection = Connection(dev_env.client, "dev", "http://ui", embedded=None, search_attributes=False)
        result, _ = await run_durable(connection, request, Printer(output), lab_deps())
    assert result.succeeded, output.getvalue()
    assert "step  1" in output.getvalue() and "model call" not in output.getvalue()


def test_where_nothing_updates_in_place_a_call_is_said_once_then_every_again_s() -> None:
    said: list[str] = []
    line = ModelCallLine(io.StringIO(), said.append, LivePace(show_after_s=2.0, first_s=10.0, again_s=30.0))
    for elapsed in (0.5, 3.0, 9.9, 10.2, 11.0, 39.0, 40.5, 41.0):
        line.show("call-1", "for step 2 (fix)", elapsed, 1200)
    assert said == [
        "  model call for step 2 (fix): running 10 s, ~1200 tokens so far",
        "  model call for step 2 (fix): running 40 s, ~1200 tokens so far",
    ]
    # Another attempt is another call: its own first line, which says which attempt it is; a
    # watch that attaches late says it once, not once for every line it missed.
    line.show("call-2", "to draft the plan", 95.0, 1500, attempt=2)
    line.show("call-2", "to draft the plan", 96.0, 1500, attempt=2)
    assert said[2:] == ["  model call to draft the plan: running 95 s (attempt 2), ~1500 tokens so far"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_on_a_terminal_the_line_updates_in_place_and_is_erased_before_the_step_line() -> None:
    terminal = _Terminal()
    printer = Printer(terminal)
    printer.calls.show("call", "for step 1 (fix)", 1.0, 0)
    assert terminal.getvalue() == ""  # a call of a second is a scripted one's: nothing
    printer.calls.show("call", "for step 1 (fix)", 3.0, 0)
    printer.calls.show("call", "for step 1 (fix)", 4.0, 0)
    drawn = terminal.getvalue()
    assert "model call for step 1 (fix): running 3 s, ~0 tokens so far" in drawn
    assert "running 4 s" in drawn and "\n" not in drawn.split("running 3 s")[1]  # redrawn, not a new line
    printer.line("  step  1 fix: read_file(path='a') -> committed")
    after = terminal.getvalue()[len(drawn) :]
    # Erased (rich goes back up to the line and clears it), and the step line printed in its place.
    assert after.rsplit("\x1b[1A\x1b[2K", 1)[1] == "  step  1 fix: read_file(path='a') -> committed\n"


class _Described:
    """What the server says of a run's pending activities (the part `describe` is read for)."""

    def __init__(self, *pending: PendingActivityInfo) -> None:
        self.raw_description = DescribeWorkflowExecutionResponse(pending_activities=list(pending))


class _Handle:
    def __init__(self, described: _Described) -> None:
        self._described = described

    async def describe(self) -> _Described:
        return self._described


def _pending(name: str, started_s_ago: float, *, attempt: int = 1, started: bool = True) -> PendingActivityInfo:
    info = PendingActivityInfo(activity_id="7", activity_type=ActivityType(name=name), attempt=attempt)
    info.state = (
        PendingActivityState.PENDING_ACTIVITY_STATE_STARTED
        if started
        else PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED
    )
    info.last_started_time.FromDatetime(datetime.now(UTC) - timedelta(seconds=started_s_ago))
    return info


async def test_a_durable_call_is_read_from_the_pending_activity_of_any_build() -> None:
    said: list[str] = []
    line = ModelCallLine(io.StringIO(), said.append, LivePace(show_after_s=2.0, first_s=10.0, again_s=30.0))
    snapshot = RunSnapshot(state=RunState.PROPOSING, step=4, usage=Usage(input_tokens=900, output_tokens=100))
    snapshot.subtask.id = "fix-median"
    for described in (
        _Described(_pending(named.EXECUTE_AND_CHECK, 60)),  # a tool's run: no model call
        _Described(_pending(named.RECORD_THEN_PROPOSE, 60, started=False)),  # waits for a worker
        _Described(_pending("propose_action", 42, attempt=2)),  # a build before the fused activity
    ):
        await show_model_call(_Handle(described), snapshot, line)  # type: ignore[arg-type]
    assert len(said) == 1 and said[0].startswith("  model call for step 4 (fix-median): running 4"), said
    assert said[0].endswith(" s (attempt 2), ~1000 tokens so far")
    await show_model_call(_Handle(_Described(_pending(named.COMPILE_GOAL, 12))), snapshot, line)  # type: ignore[arg-type]
    assert said[1].startswith("  model call to interpret the goal: running 1"), said
