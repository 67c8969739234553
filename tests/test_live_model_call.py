"""A model call in flight has a line of its own, in both runtimes: on a terminal one live line
updated in place and erased when the call ends; anywhere else a plain line once the call has run
a while, then seldom; a fast call (a scripted run's) nothing at all."""

from __future__ import annotations

import io
import re

import pytest
from temporalio.testing import WorkflowEnvironment

from contracts import NoiseConfig, RunRequest
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from starter.baseline_run import run_baseline
from starter.connection import Connection
from starter.durable_run import run_durable
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
