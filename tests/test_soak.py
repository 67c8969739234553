"""The soak's own arithmetic: which kills hit a run and how long that run took to go on, the
ledger steps it finds, the repeated keys it counts, and its command line. (The soak itself runs
in CI, `.ci/run`, as a short version: 20 kills and 2 restarts.)"""

from __future__ import annotations

import random
import subprocess
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import ApplicationError

from contracts import RunRequest, RunResult
from contracts.ledger import LedgerEntry
from experiments.measure import repeated_keys
from experiments.soak import chaos
from experiments.soak.__main__ import main as soak_main
from experiments.soak.chaos import Soak
from experiments.soak.judge import judge, ledger_steps
from experiments.soak.recovery import HeldActivity, Kill, Recovered, kill_recoveries, restart_recoveries
from experiments.soak.report import LAST_ATTEMPT_SHOWN, Spread, by_attempt
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps

T0 = 1_800_000_000.0


def event(
    event_id: int, kind: str, at: float, identity: str = "", attempt: int = 1, scheduled: int = 0
) -> HistoryEvent:
    stamp = Timestamp()
    stamp.FromNanoseconds(int((T0 + at) * 1e9))
    made = HistoryEvent(event_id=event_id, event_time=stamp)
    if kind == "workflow":
        made.event_type = EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED
        made.workflow_task_started_event_attributes.identity = identity
    elif kind == "scheduled":
        made.event_type = EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED
        made.activity_task_scheduled_event_attributes.activity_id = str(event_id)
    elif kind == "activity":
        made.event_type = EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED
        made.activity_task_started_event_attributes.identity = identity
        made.activity_task_started_event_attributes.attempt = attempt
        made.activity_task_started_event_attributes.scheduled_event_id = scheduled
    else:
        made.event_type = EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED
    return made


def test_a_kill_is_timed_by_the_run_it_hit_and_not_by_runs_elsewhere() -> None:
    histories = {
        # On the killed worker's sticky queue: goes on 1.2 s after the kill, on the other worker.
        "sticky/1": [event(1, "workflow", 0.0, "1@h"), event(2, "workflow", 11.2, "2@h"), event(3, "done", 12.0)],
        # Its activity held by the killed worker (attempt 1), started again 2.5 s after the kill.
        "retried/1": [
            event(1, "workflow", 0.0, "2@h"),
            event(2, "scheduled", 9.0),
            event(3, "activity", 12.5, "2@h", attempt=2, scheduled=2),
            event(4, "done", 13.0),
        ],
        # An activity retrying for its own reasons on the other worker (a service down): its
        # last attempt starts long after the kill, which did not hold it.
        "outage/1": [
            event(1, "workflow", 0.0, "2@h"),
            event(2, "scheduled", 5.0),
            event(3, "activity", 90.0, "2@h", attempt=9, scheduled=2),
            event(4, "done", 91.0),
        ],
        # On the other worker the whole time: not hit, though its next task starts later.
        "elsewhere/1": [event(1, "workflow", 9.5, "2@h"), event(2, "workflow", 16.0, "2@h"), event(3, "done", 17.0)],
        # Over before the kill.
        "over/1": [event(1, "workflow", 0.0, "1@h"), event(2, "done", 1.0)],
    }
    held = [HeldActivity(workflow_id="retried", activity_id="2", attempt=1)]
    found = kill_recoveries([Kill(at=T0 + 10.0, identity="1@h", held=held)], histories)
    # The longest wait among the runs it hit, and which run that was; the outage is not charged.
    [recovery] = found.timed
    assert (round(recovery.wait_s, 3), recovery.run) == (2.5, "retried/1")
    assert recovery.resumed_by == "EVENT_TYPE_ACTIVITY_TASK_STARTED"
    # The kill ended that activity's first attempt; a run hit in a workflow task names none.
    assert recovery.attempt == 1
    sticky = kill_recoveries([Kill(at=T0 + 10.0, identity="1@h")], {"sticky/1": histories["sticky/1"]})
    assert [(found.run, found.attempt) for found in sticky.timed] == [("sticky/1", None)]
    # A kill of a worker no run was on hits nothing.
    assert kill_recoveries([Kill(at=T0 + 10.0, identity="3@h")], {"e/1": histories["elsewhere/1"]}).timed == []
    # A held activity that failed again after its retry: counted, not timed (history keeps only
    # its last attempt).
    again = [HeldActivity(workflow_id="outage", activity_id="2", attempt=1)]
    found = kill_recoveries([Kill(at=T0 + 10.0, identity="2@h", held=again)], {"outage/1": histories["outage/1"]})
    assert (found.timed, found.retried_again) == ([], 1)
    [restart] = restart_recoveries([T0 + 10.0], histories)
    assert round(restart, 3) == 1.2


def test_recovery_is_grouped_by_the_attempt_a_kill_ended() -> None:
    def hit(wait_s: float, attempt: int | None) -> Recovered:
        return Recovered(at=T0, identity="1@h", run="r/1", wait_s=wait_s, resumed_by="", attempt=attempt)

    # The fifth kill in a row of one activity waits for the policy's capped backoff: the
    # spread of first attempts is not mixed with it, and attempts from the fifth share a row.
    found = [hit(2.0, 1), hit(2.2, 1), hit(3.4, 3), hit(16.7, 5), hit(16.8, 8), hit(2.5, None)]
    groups = by_attempt(found)
    assert list(groups) == ["1", "3", str(LAST_ATTEMPT_SHOWN), "task"]
    assert (groups["1"].count, groups["1"].max_s) == (2, 2.2)
    assert (groups["5"].count, groups["5"].p50_s) == (2, 16.75)
    assert groups["task"].max_s == 2.5


def test_spread_ledger_steps_and_repeated_keys(data_dir: Path) -> None:
    assert Spread.of([]).count == 0 and Spread.of([]).p95_s is None
    spread = Spread.of([1.0, 2.0, 3.0, 10.0])
    assert (spread.count, spread.p50_s, spread.max_s) == (4, 2.5, 10.0)
    # A ledger as the runtime writes it: a run-level event and two steps' events.
    run, at = f"soak-{uuid.uuid4().hex[:8]}", datetime(2026, 12, 1, tzinfo=UTC)
    entries = [
        LedgerEntry(event_id=f"{run}/run/run_started", type="run_started", run_id=run, time=at),
        LedgerEntry(event_id=f"{run}/step-1/proposal", type="proposal", run_id=run, time=at, step=1),
        LedgerEntry(event_id=f"{run}/step-12/verdict", type="verdict", run_id=run, time=at, step=12),
    ]
    lab_deps().ledgers.append(run, entries, "w")
    assert ledger_steps(lab_deps().ledgers.path(run)) == {1, 12}
    state = {
        "refunds": [{"idempotency_key": "a"}, {"idempotency_key": "a"}, {"idempotency_key": None}],
        "tickets": [{"idempotency_key": "b"}],
    }
    assert repeated_keys(state) == 1


@pytest.mark.parametrize(
    "arguments", [["--kills", "-1"], ["--gap", "3", "1"], ["--concurrency", "0"], ["--workers", "1"]]
)
def test_bad_arguments_get_one_line_and_exit_2(arguments: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        soak_main(arguments)
    assert exited.value.code == 2
    assert "error: " in capsys.readouterr().err.strip().splitlines()[-1]


def test_the_command_refuses_bad_arguments_without_a_traceback() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "experiments.soak", "--kills", "-1"], cwd=PROJECT_ROOT, capture_output=True, text=True
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "error: " in done.stderr.strip().splitlines()[-1], done.stderr


async def test_a_run_whose_workflow_failed_without_a_result_is_counted_and_the_soak_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The soak's first full run stopped with a traceback at such a run (a git lock left by a
    killed commit failed every retry of its step): now it is a problem in the report."""
    soak = Soak(cluster=None, tasks=[load_task("rename-refactor")], rng=random.Random(0))  # type: ignore[arg-type]

    async def start(request: RunRequest) -> object:
        return request.run_id

    async def result(handle: object) -> RunResult:
        soak.chaos_done.set()
        raise WorkflowFailureError(cause=ApplicationError("GitCommandError: cannot lock ref 'HEAD'"))

    async def no_approver(handle: object) -> None:
        return None

    monkeypatch.setattr(soak, "_start", start)
    monkeypatch.setattr(soak, "_result", result)
    monkeypatch.setattr(chaos, "approve_what_waits", no_approver)
    await soak.keep_running()
    [problem] = soak.unfinished
    assert problem.task_id == "rename-refactor" and soak.finished == []
    assert problem.problem == "its workflow failed: ApplicationError: GitCommandError: cannot lock ref 'HEAD'"


async def test_a_run_that_ended_before_its_ledger_is_a_problem_not_a_crash(data_dir: Path) -> None:
    """The second full soak stopped with a traceback at its judgement: a run whose workspace was
    never prepared had no ledger to verify. It is a problem in the report instead."""
    task = load_task("rename-refactor")
    soak = Soak(cluster=None, tasks=[task], rng=random.Random(0))  # type: ignore[arg-type]
    request = build_request(task, "durable")
    run_id = request.run_id
    result = RunResult(
        run_id=run_id,
        runtime="durable",
        task_id=task.spec.id,
        outcome="FAILED",
        reason="prepare_workspace failed: activity ScheduleToClose timeout",
        workspace="",
    )
    soak.finished.append((task, request, result))
    judged = await judge(soak, lab_deps())
    assert judged.completed == 0 and judged.ledgers_verified == 0
    [problem] = judged.problems
    assert problem.run_id == run_id
    assert problem.problem.startswith("FAILED: prepare_workspace failed") and problem.problem.endswith("no ledger")
