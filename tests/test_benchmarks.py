"""The benchmark scripts still run: each in its quick mode, as a user runs it (a subprocess from
the project root), printing the figures it exists to print.

Nothing else runs them, so without this a moved import or a new task they cannot handle goes
unnoticed until someone wants their numbers. The figures are only checked to be figures
(numbers that parse, in the right places): quick runs are too short to measure anything.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from agent import ops_world
from agent.sandbox import SandboxUnavailable, select_sandbox
from lab.runs.catalog import list_tasks
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps

# The dev server and worker processes some of them start, on a loaded machine. A minute and a
# half of the suite's time: left out of the default run (`uv run pytest -m slow`; CI runs them).
pytestmark = [pytest.mark.timeout(240), pytest.mark.slow]

Table = list[dict[str, str]]


def quick(benchmark: str, timeout_s: float = 200) -> str:
    """The benchmark's standard output, after it exited 0."""
    # Its own servers and faults only: nothing of a server or fault plan this session may have set.
    env = {key: value for key, value in os.environ.items() if not key.startswith(("AGENT_LAB_FAULT", "TEMPORAL_"))}
    done = subprocess.run(
        [sys.executable, "-m", f"experiments.benchmarks.{benchmark}", "--quick"],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout_s,
    )
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"
    return done.stdout


def tables(output: str) -> list[Table]:
    """Every markdown table printed, as rows keyed by their header's cells."""
    found: list[Table] = []
    header: list[str] | None = None
    for line in output.splitlines():
        if not line.startswith("|"):
            header = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if header is None:
            header = cells
            found.append([])
        elif not all(cell and set(cell) <= set("-:") for cell in cells):
            found[-1].append(dict(zip(header, cells, strict=True)))
    return found


def number(cell: str) -> float:
    assert re.fullmatch(r"-?\d[\d,]*(\.\d+)?", cell), f"not a number: {cell!r}"
    return float(cell.replace(",", ""))


def test_sandbox_overhead_times_each_backend_that_runs_here_and_says_why_not_for_the_others() -> None:
    [table] = tables(quick("sandbox_overhead"))
    assert sorted({row["backend"] for row in table}) == ["bubblewrap", "docker", "process"]
    for backend in ("process", "bubblewrap", "docker"):
        rows = [row for row in table if row["backend"] == backend]
        if runs_here(backend):
            assert sorted(row["command"] for row in rows) == ["`python -c pass`", "`true`"], rows
            for row in rows:
                assert 0 < number(row["median ms"]) <= number(row["p95 ms"]), row
        else:
            [row] = rows
            assert re.fullmatch(r"\(unavailable: .+\)", row["command"]), row
            assert row["median ms"] == row["p95 ms"] == "", row


def test_containment_measures_each_attack_against_its_bound_and_probes_the_host() -> None:
    output = quick("containment")
    assert output.startswith("whole-command limits enforced here:")
    found = tables(output)
    if not runs_here("bubblewrap"):
        [[row]] = found
        assert "cannot sandbox here" in row["attack"], row
        return
    attacks, [probe] = found
    assert len(attacks) == 15 and all(row["named limit"] for row in attacks), attacks
    for row in attacks:
        assert number(row["bound"].split()[0]) > 0 and number(row["seconds"]) >= 0, row
    assert number(probe["probes"]) > 0 and number(probe["max ms"]) >= number(probe["median ms"]) > 0, probe


def runs_here(backend: str) -> bool:
    try:
        select_sandbox(backend, lab_deps().artifacts)
    except SandboxUnavailable:
        return False
    return True


def test_provider_overhead_times_the_provider_and_a_raw_post() -> None:
    output = quick("provider_overhead")
    [table] = tables(output)
    assert [row["call"] for row in table] == ["OpenAIProvider.propose", "raw httpx POST"]
    medians = []
    for row in table:
        median, p95 = number(row["median ms"]), number(row["p95 ms"])
        assert 0 < median <= p95, row
        medians.append(median)
    assert re.search(r"^2 calls each, prompt of \d+ characters$", output, re.MULTILINE), output
    overhead = re.search(r"^overhead per call: (-?[\d.]+) ms", output, re.MULTILINE)
    assert overhead is not None, output
    # The difference of the two medians, all three printed to 0.01 ms.
    assert number(overhead[1]) == pytest.approx(medians[0] - medians[1], abs=0.016)


def test_durable_overhead_splits_a_durable_run_into_work_and_orchestration() -> None:
    output = quick("durable_overhead")
    table, split = tables(output)
    durable, baseline, reading, reading_baseline = table
    assert (durable["task"], durable["runtime"]) == ("bugfix-median", "durable")
    # The synthetic reading task, shortened to 5 steps in the quick mode.
    assert (reading["task"], reading["runtime"], reading["steps"]) == ("history-5", "durable", "5")
    assert (reading_baseline["task"], reading_baseline["runtime"]) == ("history-5", "baseline")
    wall, inside, steps = (number(durable[column]) for column in ("wall s", "in activities s", "steps"))
    assert wall > 0 and inside > 0 and steps >= 1 and number(durable["activities"]) >= steps
    # One run: its orchestration is its wall time less its time in activities, per step (both
    # printed to 0.01 s, hence the tolerance).
    assert number(durable["orchestration ms/step"]) == pytest.approx(
        (wall - inside) / steps * 1000, abs=10 / steps + 0.1
    )
    assert (baseline["task"], baseline["runtime"]) == ("bugfix-median", "baseline")
    assert number(baseline["wall s"]) > 0 and number(baseline["steps"]) >= 1
    assert (baseline["activities"], baseline["in activities s"], baseline["orchestration ms/step"]) == ("-", "-", "0")
    ops_tasks = [task.spec.id for task in list_tasks() if ops_world.seed_file(task.fixture_dir) is not None]
    assert f"Not timed (they need the operations service): {', '.join(ops_tasks)}" in output
    # Where the step's time went: each activity the run ran, workflow tasks and the rest, which
    # add up to the wall time per step (each printed to 0.1 ms).
    row, reading_row = split
    assert (row["task"], reading_row["task"]) == ("bugfix-median", "history-5")
    for activity in (
        "record_then_propose",
        "execute_and_check",
        "check_postconditions",
        "verify_proposal",
        "record_step",
    ):
        assert activity in row, row
    parts = [number(cell) for column, cell in row.items() if column != "task"]
    assert sum(parts) == pytest.approx(wall / steps * 1000, abs=10 / steps + 0.1 * len(parts))
    assert number(row["workflow tasks"]) > 0
    # Its reads are verified and run in one local activity: the tool's time is in verify_and_read.
    assert number(reading_row["verify_and_read"]) > 0


def test_recovery_times_a_kill_and_weighs_a_history() -> None:
    recovery, history = tables(quick("recovery"))
    [kill] = recovery
    assert (kill["kill point"], kill["retried activity"]) == ("after the effect", "execute_and_check")
    assert number(kill["kills"]) == 1
    for measure in ("retried", "resumed"):
        median, p95, high = (number(kill[f"{measure} {column}"]) for column in ("s (median)", "p95", "max"))
        assert 0 < median == p95 == high, kill  # one kill: its time is every one of them
    # The workflow moves on only after the retried activity has started.
    assert number(kill["resumed s (median)"]) >= number(kill["retried s (median)"]), kill
    [run] = history
    assert run["task"] == "refund-duplicate-charge"
    steps, events = number(run["steps"]), number(run["history events"])
    assert steps >= 1 and events > steps
    assert number(run["history bytes per step"]) > 0


def test_ledger_append_times_warm_and_first_appends_at_each_size() -> None:
    [table] = tables(quick("ledger_append"))
    assert [number(row["events in the ledger"]) for row in table] == [10, 200]
    for row in table:
        for column in ("append", "first append after a restart"):
            assert number(row[f"{column} ms (median)"]) > 0, row
        assert number(row["append ms (median)"]) <= number(row["append p95"]), row
        assert number(row["first append after a restart ms (median)"]) <= number(row["first p95"]), row


def test_history_size_weighs_each_run_length_and_says_where_the_bytes_are() -> None:
    sizes, where = tables(quick("history_size"))
    # A run of N steps: N - 1 reads and the write that finishes it.
    assert [number(row["steps"]) for row in sizes] == [3, 6]
    for row in sizes:
        assert number(row["generations"]) >= 1 and number(row["events"]) > number(row["steps"]), row
        total, per_step = number(row["history bytes"]), number(row["bytes per step"])
        assert per_step == pytest.approx(total / number(row["steps"]), abs=1), row
        # Each read's observation (a 60-line window) is over the threshold: by reference.
        assert number(row["stored by reference, per step"].split(" (")[0]) > 0, row
    assert any(row["events"].startswith("activity_task_scheduled (record_then_propose)") for row in where), where
    assert sum(float(row["share"].rstrip("%")) for row in where) <= 100.5


def test_capacity_loads_the_cluster_with_concurrent_runs() -> None:
    output = quick("capacity")
    [table] = tables(output)
    assert [number(row["concurrent runs"]) for row in table] == [1, 4]
    for row in table:
        # Every run of 3 steps finished: the load's steps are its runs' steps.
        assert number(row["steps"]) == 3 * number(row["concurrent runs"]), row
        assert number(row["agent steps/s"]) == pytest.approx(number(row["steps"]) / number(row["wall s"]), rel=0.05)
        assert 0 < number(row["step latency ms (median)"]) <= number(row["step p95"]), row
    assert "2 worker processes, one dev server" in output


def test_step_floor_runs_steps_that_do_nothing_in_worker_processes() -> None:
    output = quick("step_floor")
    [table] = tables(output)
    assert [number(row["concurrent runs"]) for row in table] == [1, 4]
    for row in table:
        assert number(row["steps"]) == 3 * number(row["concurrent runs"]), row
        assert number(row["steps/s"]) > 0 and number(row["ms per step of a run (median)"]) > 0, row
    assert "2 worker processes, one dev server; runs of 3 steps of 1 remote + 1 local activities" in output


@pytest.mark.extra("local")
@pytest.mark.timeout(600)  # a model on both cores, beside the other tests' processes
def test_grammar_sampling_times_both_ways_of_sampling() -> None:
    output = quick("grammar_sampling", timeout_s=540)
    [table] = tables(output)
    assert [row["answer"] for row in table] == ["first proposal", "goal", "plan"], output
    for row in table:
        assert int(row["tokens"]) > 0, output
        assert float(row["stock ms/token"]) > 0 and float(row["checked last ms/token"]) > 0, output
        assert row["same answer"] == "yes", output


def test_parallel_subtasks_times_a_run_both_ways_and_says_where_the_time_went() -> None:
    wall, where = tables(quick("parallel_subtasks"))
    assert [(row["task"], row["mode"]) for row in wall] == [
        ("independent-parts", "sequential"),
        ("independent-parts", "parallel"),
    ]
    for row in wall:
        assert number(row["runs"]) == 1 and number(row["steps"]) == 7
        assert 0 < number(row["checks s"]) <= number(row["in activities s"])
    sequential, parallel = where
    # Only the parallel run makes worktrees and merges them: four children, four merges.
    assert "merge_subtask" in parallel and number(parallel["merge_subtask"]) > 0
    assert number(sequential["merge_subtask"]) == 0 and number(sequential["prepare_subtask"]) == 0
