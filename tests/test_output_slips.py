"""What the starter prints, where a new user found it wrong (issue 33): a replay without the
tools' arguments, an odd verification line, a parallel plan printed as a chain, `FAILED: FAILED`,
`1 steps`, `steps 1..0`, a diff whose arguments hid `path`, and a baseline run called missing.

Through the real command where it is quick (replay, ledger verify, diff of recorded ledgers, the
errors); the end of a run through its renderer, on results made here. The real runs that back
these are in tests/test_cli.py, tests/test_fork_cli.py, tests/test_fork.py and
tests/test_parallel_subtasks.py.
"""

from __future__ import annotations

import io
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pydantic import JsonValue
from pydantic_core import to_json

from agent.budget import Spent, exhausted
from agent.ledger import verify_ledger
from contracts import PostconditionResult, RunBudget, RunResult, RunState, StepRecord, Usage
from contracts.counts import counted, steps_through
from contracts.ledger import EventType, LedgerEntry
from contracts.postconditions import PostconditionOutcome
from lab.invariants import RULES, InvariantReport
from lab.invariants.report import RuleOutcome
from lab.runs.baseline_runs import baseline_has_no_history, is_baseline_run
from lab.runs.run_diff import RunDiff, RunRecord, diff_runs, read_run
from starter.check_render import render_run, render_tally
from starter.diff_command import render
from starter.ledger_command import summary
from starter.render import Printer, plan_line
from tests.lab_dependencies import lab_deps
from tests.test_cli import assert_one_line_error, starter

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
FIXED = {"path": "textstats/stats.py", "old": "return ordered[middle]\n", "new": "return (a + b) / 2\n"}


def _entry(run_id: str, index: int, type: EventType, step: int | None = None, **payload: JsonValue) -> LedgerEntry:
    return LedgerEntry(
        event_id=f"{run_id}:{index}:{type}",
        type=type,
        run_id=run_id,
        time=T0 + timedelta(seconds=index),
        step=step,
        payload=payload,
    )


def _recorded(steps: list[tuple[str, dict[str, JsonValue]]], tmp_path: Path) -> str:
    """A run's ledger as its writers record it (JSON with sorted keys): its id."""
    run_id = f"durable-slips-{uuid.uuid4().hex[:8]}"
    entries = [_entry(run_id, 0, "run_started", task="fix-median", workspace=str(tmp_path / "gone" / run_id))]
    for number, (tool, arguments) in enumerate(steps, start=1):
        proposal: dict[str, JsonValue] = {"kind": "tool_call", "tool": tool, "arguments": arguments}
        entries.append(_entry(run_id, 2 * number - 1, "proposal", number, task="fix-median", proposal=proposal))
        entries.append(_entry(run_id, 2 * number, "commit", number))
    lab_deps().ledgers.append(run_id, entries, "w")
    return run_id


def _ended(
    outcome: RunState, *, reason: str = "", steps: int = 3, calls: int = 5, plan: dict[str, list[str]] | None = None
) -> str:
    plan = plan or {}
    result = RunResult(
        run_id="durable-x",
        runtime="durable",
        task_id="t",
        outcome=outcome,
        reason=reason,
        plan=list(plan),
        plan_depends_on=plan,
        steps=[StepRecord(step=n, subtask_id="s", outcome="committed") for n in range(1, steps + 1)],
        usage=Usage(model_calls=calls, input_tokens=1),
    )
    judged = PostconditionResult(outcomes=[PostconditionOutcome(description="tests pass", passed=True)])
    out = io.StringIO()
    Printer(out).finished(result, judged)
    return out.getvalue()


# 1. replay shows each proposal's tool and arguments, shortened as `run` shows a step.
def test_replay_shows_each_proposals_arguments_in_the_tools_order(tmp_path: Path) -> None:
    run_id = _recorded(
        [("replace_in_file", FIXED), ("write_file", {"path": "notes.md", "content": "x" * 500})], tmp_path
    )
    replayed = starter("replay", run_id)
    assert replayed.returncode == 0, replayed.stderr
    rows = replayed.stdout.splitlines()
    shown = "replace_in_file(path='textstats/stats.py', old='return ordered[middle]\\n', new='return (a + b) / 2\\n')"
    assert shown[:69] in rows[2]  # the ledger's sorted keys put `new` first: the tool's order is shown
    written = next(row for row in rows if "write_file(" in row)
    assert "write_file(path='notes.md', content='xxx" in written and "x" * 60 not in written


# 2. The last line of replay and of ledger verify says what was verified.
def test_the_verification_line_says_what_was_verified(tmp_path: Path) -> None:
    run_id = _recorded([("read_file", {"path": "a.py"})], tmp_path)
    path = lab_deps().ledgers.path(run_id)
    said = f"ledger of {run_id}: 3 events, hash chain intact ({path})"
    for command in (["ledger", "verify", run_id], ["replay", run_id]):
        done = starter(*command)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines()[-1] == said
    assert "verify in" not in done.stdout and "OK:" not in done.stdout


# 3. A plan that is not a chain shows what each subtask waits for; a chain is shown as before.
def test_a_plan_is_shown_as_a_chain_only_when_it_is_one() -> None:
    assert plan_line(["a", "b", "c"], {"a": [], "b": ["a"], "c": ["b"]}) == "a -> b -> c"
    assert plan_line(["a"], {"a": []}) == "a"
    assert plan_line(["a", "b", "c"], {"a": [], "b": ["a"], "c": ["a"]}) == "a, b (after a), c (after a)"
    assert plan_line(["a", "b", "c"], {"a": [], "b": [], "c": ["a", "b"]}) == "a, b, c (after a, b)"
    assert plan_line(["a", "b"], {"a": [], "b": []}) == "a, b"
    # A result recorded before it carried the dependencies: a chain, as it was printed then.
    assert plan_line(["a", "b"], {}) == "a -> b"
    assert "  plan: a, b (after a), c (after a)\n" in _ended(RunState.COMPLETED, plan={"a": [], "b": ["a"], "c": ["a"]})


def test_a_result_without_dependencies_is_written_as_before() -> None:
    """Recorded results have no `plan_depends_on`: they are written again byte for byte."""
    old = RunResult(run_id="r", runtime="durable", task_id="t", outcome=RunState.COMPLETED, plan=["a"])
    assert b"plan_depends_on" not in to_json(old)
    new = old.model_copy(update={"plan_depends_on": {"a": []}})
    assert RunResult.model_validate_json(to_json(new)).plan_depends_on == {"a": []}


# 4. An outcome is said once, with something useful when no reason was recorded.
@pytest.mark.parametrize("reason", ["", "FAILED"])
def test_a_failed_run_says_failed_once(reason: str) -> None:
    out = _ended(RunState.FAILED, reason=reason)
    assert out.startswith("FAILED in 0.0 s, 3 steps") and "FAILED: FAILED" not in out
    assert "  reason: none recorded; the last step above is where the run stopped\n" in out
    assert _ended(RunState.BUDGET_EXHAUSTED, reason="no finish").startswith("FAILED: BUDGET_EXHAUSTED in ")
    ended = RunRecord("b", task="t", outcome="FAILED", reason=reason)
    lines = render(RunDiff(ended, ended, None, None))
    assert "end: A FAILED" in lines and "     B FAILED" in lines


# 5. Counts are singular or plural as they need.
def test_counts_are_singular_or_plural(tmp_path: Path) -> None:
    assert [counted(n, "step") for n in (0, 1, 2)] == ["0 steps", "1 step", "2 steps"]
    assert counted(1, "entry", "entries") == "1 entry" and counted(3, "entry", "entries") == "3 entries"
    out = _ended(RunState.COMPLETED, steps=1, calls=1)
    assert out.startswith("ok: COMPLETED in 0.0 s, 1 step (1 committed, 0 rejected), 1 model call, ~1 token\n")
    run_id = _recorded([("read_file", {"path": "a.py"})], tmp_path)
    record = read_run(lab_deps().ledgers, run_id)
    assert "the same 1 step in both" in render(diff_runs(record, record))
    one = lab_deps().ledgers.path(run_id).with_name(f"one-{run_id}.jsonl")
    one.write_bytes(lab_deps().ledgers.path(run_id).read_bytes().splitlines(keepends=True)[0])
    assert summary(verify_ledger(one)).startswith(f"ledger of {run_id}: 1 event, hash chain intact")
    assert exhausted(RunBudget(max_steps=1), Spent(1, Usage(), 0.0), Spent(0, Usage(), 0.0), 12) == (
        "the run's budget of 1 step is spent (1)"
    )
    one_run = InvariantReport(run_id="r", outcomes=[RuleOutcome(rule=RULES[0].id, title="t", status="pass")])
    assert render_run(one_run, brief=True) == ["ok    r: 1 rule: 1 pass"]
    tally = render_tally([one_run])
    assert tally[-1] == "1 run checked: 1 clean, 0 with violations"
    assert tally[0].endswith("  1 run passes, 0 fail, 0 skipped")


# 6. Steps 1..K said as a person says them.
def test_a_range_of_steps_is_never_one_to_zero() -> None:
    assert [steps_through(k) for k in (0, 1, 2)] == ["no steps", "step 1", "steps 1..2"]


# 7. diff shows arguments in the order the tool declares them: `path` is not cut off.
def test_diff_shows_path_first_in_the_table_and_in_full(tmp_path: Path) -> None:
    wrong = dict(FIXED, new="return ordered[middle - 1]\n")
    a = _recorded([("read_file", {"path": "a.py"}), ("replace_in_file", FIXED)], tmp_path)
    b = _recorded([("read_file", {"path": "a.py"}), ("replace_in_file", wrong)], tmp_path)
    diffed = starter("diff", a, b)
    assert diffed.returncode == 0, diffed.stderr
    lines = diffed.stdout.splitlines()
    assert "step 1 the same; they part at step 2" in lines
    [row] = [line for line in lines if line.startswith("*    2")]
    assert row.count("replace_in_file(path='textstats/stats.py', old=") == 2
    full = "replace_in_file(path='textstats/stats.py', old='return ordered[middle]\\n', new="
    assert f"  A: {full}'return (a + b) / 2\\n') -> committed" in lines
    assert f"  B: {full}'return ordered[middle - 1]\\n') -> committed" in lines


# 8. A baseline run has no Temporal history: said in one line, with what to run instead.
def test_a_baseline_run_is_named_as_such_by_the_commands_that_read_a_durable_one(tmp_path: Path) -> None:
    run_id = "baseline-bugfix-median-0123abcd"
    durable = _recorded([("read_file", {"path": "a.py"})], tmp_path)
    for command in (["replay", run_id], ["ledger", "verify", run_id], ["diff", run_id, durable]):
        said = starter(*command)
        assert_one_line_error(said, f"{run_id} is a baseline run", "no Temporal history", "durable runs only")
        assert "--task bugfix-median --runtime durable" in said.stderr and "no ledger at" not in said.stderr
    assert is_baseline_run("small-20261201-145421-small-fix-import-baseline-none-0-a1")
    assert not is_baseline_run("durable-bugfix-median-0123abcd") and not is_baseline_run(durable)
    assert not is_baseline_run("small-20261201-145421-small-fix-import-durable-none-0")
    # Had it kept a ledger, that is what a person can check.
    with_ledger = f"baseline-fix-{uuid.uuid4().hex[:8]}"
    lab_deps().ledgers.append(with_ledger, [_entry(with_ledger, 0, "run_started", task="fix")], "w")
    told = baseline_has_no_history(with_ledger, lab_deps().ledgers)
    assert told is not None and told.endswith(
        f"`uv run python -m starter ledger verify {with_ledger}` checks its ledger"
    )
