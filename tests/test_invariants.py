"""Invariants over recorded runs (lab/invariants): every history the tests record passes every
rule; a violation of each kind, planted in a copy of a real run, is caught by its rule alone,
citing the events that show it; and `starter check` says so, or says in one line why it cannot.

Real runs: an approval run, a rename, a wrong fix and a run out of budget, on the time-skipping
test server, with this module's own data directory (their ledgers and artifacts, and nothing
any other test left there, are what `check --all` sees).
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from contracts import Approve, ProviderConfig, RunRequest
from host.build import build_worker
from lab.invariants import RULES, Evidence, Violation, check_run, gather, read_history
from lab.runs.catalog import load_task
from lab.runs.run_request import build_request
from starter.check_command import check
from starter.cli import main
from tests import invariant_plants as plant
from tests.conftest import free_port
from tests.histories import stored
from tests.histories.record import WRONG_FIX, approval_request
from tests.lab_dependencies import lab_deps
from workflows import AgentRunWorkflow
from workflows.outcome import run_result

COMMITTED = Path(__file__).parent / "histories"
HISTORIES = sorted(COMMITTED.glob("*.json"))
# Histories of builds before docs/decisions/0006: `starter check` still reads such runs.
RETIRED = COMMITTED / "retired"
ALL_RULES = [rule.id for rule in RULES]
WITHOUT_A_LEDGER = {"ledger-chain-intact", "ledger-matches-history"}


@dataclass(frozen=True)
class Recorded:
    run_id: str
    ledger: Path
    history: Path


@pytest.fixture(scope="module")
def lab_data(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """This module's own data directory: `check --all` then sees the runs recorded here alone."""
    path = tmp_path_factory.mktemp("invariants-data")
    previous = os.environ["AGENT_LAB_DATA"]
    os.environ["AGENT_LAB_DATA"] = str(path)
    yield path
    os.environ["AGENT_LAB_DATA"] = previous


@pytest.fixture(scope="module")
async def recorded(env: WorkflowEnvironment, lab_data: Path) -> dict[str, Recorded]:
    bugfix = load_task("bugfix-median")
    wrong_fix = ProviderConfig(script_path=str(WRONG_FIX))
    (lab_data / "approval").mkdir()
    requests: dict[str, tuple[RunRequest, bool]] = {
        "approval": (approval_request(lab_data / "approval"), True),
        "rename": (build_request(load_task("rename-refactor"), "durable"), False),
        "wrong_fix": (
            build_request(bugfix, "durable").model_copy(update={"provider": wrong_fix}),
            False,
        ),
        "budget": (build_request(bugfix, "durable", max_steps=1), False),
    }
    queue = f"tq-{uuid.uuid4().hex[:12]}"
    runs: dict[str, Recorded] = {}
    async with build_worker(env.client, queue):
        for name, (request, approve) in requests.items():
            handle = await env.client.start_workflow(AgentRunWorkflow.run, request, id=request.run_id, task_queue=queue)
            if approve:
                while (pending := await handle.query(AgentRunWorkflow.pending_approval)) is None:
                    await asyncio.sleep(0.02)
                await handle.execute_update(
                    AgentRunWorkflow.approve, Approve(approver="tester", arguments_sha256=pending.arguments_sha256)
                )
            await run_result(handle)
            history = lab_data / f"{name}.history.json"
            history.write_text((await handle.fetch_history()).to_json())
            runs[name] = Recorded(request.run_id, lab_deps().ledgers.path(request.run_id), history)
    return runs


def caught(evidence: Evidence, rule: str) -> list[Violation]:
    """The violations found, after checking that `rule`, and no other, found them."""
    report = check_run(evidence)
    assert report.failed() == [rule], [str(found) for found in report.violations]
    return report.violations


def ledger_only(path: Path, run_id: str) -> Evidence:
    return gather(run_id, path, None, lab_deps().artifacts)


def history_only(path: Path) -> Evidence:
    return gather(path.stem, None, [read_history(path)], lab_deps().artifacts)


def both(ledger: Path, history: Path, run_id: str) -> Evidence:
    return gather(run_id, ledger, [read_history(history)], lab_deps().artifacts)


# --- what the tests record passes --------------------------------------------------------------


@pytest.mark.parametrize("path", HISTORIES, ids=[path.stem for path in HISTORIES])
def test_every_committed_history_passes_every_rule_it_can_be_held_to(path: Path, lab_data: Path) -> None:
    stored.install()  # what the histories hold by reference, into this module's artifact store
    evidence = history_only(path)
    report = check_run(evidence)
    assert report.clean, [str(found) for found in report.violations]
    assert {outcome.rule: outcome.status for outcome in report.outcomes} == {
        rule: "skip" if rule in WITHOUT_A_LEDGER else "pass" for rule in ALL_RULES
    }
    # The rules passed on facts, not for want of them: every step was read to its end. (A run
    # with parallel subtasks takes no step itself: its steps are its children's, one of which,
    # `parallel_subtask_child`, is held to the rules as any run.)
    assert evidence.history is not None
    assert evidence.history.steps or path.stem == "parallel_subtasks"
    assert all(step.outcome is not None and step.proposal is not None for step in evidence.history.steps)


def test_a_history_whose_artifacts_are_missing_is_not_accused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked where its artifact store is not (another machine): what it holds by reference is
    said to be unread, and no rule counts a fact it could not read as a fact that is missing."""
    monkeypatch.setenv("AGENT_LAB_DATA", str(tmp_path))  # an empty artifact store
    evidence = history_only(RETIRED / "fused_steps.json")
    report = check_run(evidence)
    assert report.clean, [str(found) for found in report.violations]
    unread = [note for note in report.notes if note.startswith("not read, so not checked: history event ")]
    assert len(unread) == 2 and all("no artifact" in note for note in unread)
    assert evidence.history is not None and [step.step for step in evidence.history.steps if step.unread] == [1]


async def test_every_run_this_module_records_passes_every_rule(recorded: dict[str, Recorded]) -> None:
    for name, run in recorded.items():
        report = check_run(both(run.ledger, run.history, run.run_id))
        assert report.clean, (name, [str(found) for found in report.violations])
        assert all(outcome.status == "pass" for outcome in report.outcomes), name


# --- each violation, planted, is caught by its rule -------------------------------------------


def test_an_effect_before_its_approval_is_caught(tmp_path: Path, lab_data: Path) -> None:
    """The approval update moved after the write it approved began."""
    history = plant.load_history(RETIRED / "approval.json")
    events = history["events"]
    update = [each for each in events if each["eventType"].startswith("EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_")]
    execute = plant.scheduled(history, "execute_tool", 1)
    history["events"] = [each for each in events if each not in update]
    at = history["events"].index(execute) + 1
    history["events"][at:at] = update
    plant.renumbered(history)

    found = caught(history_only(plant.write_history(tmp_path / "approval.json", history)), "approval-before-effect")
    assert [str(each) for each in found] == [
        "step 1: write_file(content='done\\n', path='notes.txt') ran before recorder approved it "
        f"(history event {execute['eventId']}; history event {update[1]['eventId']})"
    ]


async def test_an_effect_with_arguments_other_than_approved_is_caught(
    recorded: dict[str, Recorded], tmp_path: Path
) -> None:
    run = recorded["approval"]
    lines = plant.ledger_lines(run.ledger)
    decided = plant.line_of(lines, "approval_decided", 1)
    decided["payload"]["decision"]["arguments_sha256"] = "0" * 64
    found = caught(
        ledger_only(plant.write_sealed(tmp_path / "planted.jsonl", lines), run.run_id), "approval-before-effect"
    )
    ran = plant.line_of(lines, "tool_result", 1)
    assert len(found) == 1 and "other than those tester approved (sha256 000000000000...)" in found[0].message
    assert found[0].cites == [f"ledger seq {lines.index(ran) + 1}", f"ledger seq {lines.index(decided) + 1}"]


def test_two_effects_under_one_key_in_a_history_are_caught(tmp_path: Path, lab_data: Path) -> None:
    history = plant.load_history(RETIRED / "rename_refactor.json")
    second, third = (plant.scheduled(history, "execute_tool", step) for step in (2, 3))
    key = plant.value(plant.result_payload(plant.completion(history, second)))["idempotency_key"]
    plant.edit_payload(
        plant.result_payload(plant.completion(history, third)), lambda result: {**result, "idempotency_key": key}
    )
    found = caught(history_only(plant.write_history(tmp_path / "rename.json", history)), "one-effect-per-key")
    assert [str(each) for each in found] == [
        f"idempotency key {key[:12]}... acted 2 times (replace_in_file: step 2, step 3) "
        f"(history event {second['eventId']}; history event {third['eventId']})"
    ]


async def test_two_effects_under_one_key_in_a_ledger_are_caught(recorded: dict[str, Recorded], tmp_path: Path) -> None:
    run = recorded["rename"]
    lines = plant.ledger_lines(run.ledger)
    second, third = (plant.line_of(lines, "tool_result", step) for step in (2, 3))
    third["payload"]["result"]["idempotency_key"] = second["payload"]["result"]["idempotency_key"]
    found = caught(ledger_only(plant.write_sealed(tmp_path / "planted.jsonl", lines), run.run_id), "one-effect-per-key")
    assert len(found) == 1 and "acted 2 times" in found[0].message
    assert found[0].cites == [f"ledger seq {lines.index(second) + 1}", f"ledger seq {lines.index(third) + 1}"]


@pytest.mark.parametrize(("limit", "spent"), [("max_steps", "run's budget of 3 steps"), ("max_tokens", "tokens")])
def test_a_step_begun_over_budget_is_caught(limit: str, spent: str, tmp_path: Path, lab_data: Path) -> None:
    """The run's start input given a smaller budget than the run then took."""
    history = plant.load_history(RETIRED / "rename_refactor.json")
    start = history["events"][0]["workflowExecutionStartedEventAttributes"]["input"]["payloads"][0]
    value = 3 if limit == "max_steps" else 2000
    plant.edit_payload(start, lambda request: {**request, "budget": {**request["budget"], limit: value}})
    found = caught(history_only(plant.write_history(tmp_path / "rename.json", history)), "budget-respected")
    first = found[0]
    assert spent in first.message
    step = int(first.message.split()[1])
    assert first.cites == [f"history event {plant.scheduled(history, 'propose_action', step)['eventId']}"]
    if limit == "max_steps":
        assert [int(each.message.split()[1]) for each in found] == [4, 5, 6, 7]


def test_a_commit_without_a_verdict_is_caught(tmp_path: Path, lab_data: Path) -> None:
    history = plant.load_history(RETIRED / "rename_refactor.json")
    history["events"].remove(plant.marker(history, "verify_proposal", 2))
    found = caught(history_only(plant.write_history(tmp_path / "rename.json", history)), "commit-verified")
    recorded_at = plant.marker(history, "record_step", 2)["eventId"]
    assert len(found) == 1 and found[0].message.startswith("step 2 committed replace_in_file(")
    assert found[0].message.endswith("without a verdict") and found[0].cites == [f"history event {recorded_at}"]


def test_a_commit_of_a_failed_call_is_caught(tmp_path: Path, lab_data: Path) -> None:
    history = plant.load_history(RETIRED / "rename_refactor.json")
    execute = plant.scheduled(history, "execute_tool", 2)
    plant.edit_payload(
        plant.result_payload(plant.completion(history, execute)),
        lambda result: {**result, "ok": False, "error": "planted"},
    )
    found = caught(history_only(plant.write_history(tmp_path / "rename.json", history)), "commit-verified")
    assert len(found) == 1 and "though it failed (replace_in_file: error: planted)" in found[0].message
    assert found[0].cites[1] == f"history event {execute['eventId']}"


async def test_a_task_closed_on_a_failing_check_is_caught(recorded: dict[str, Recorded], tmp_path: Path) -> None:
    run = recorded["rename"]
    lines = plant.ledger_lines(run.ledger)
    proposals = [line for line in lines if line["type"] == "proposal"]
    last = max(line["step"] for line in proposals if line["payload"]["task"] == "rename-definition")
    check = plant.line_of(lines, "postconditions", last)
    check["payload"]["passed"] = False
    found = caught(ledger_only(plant.write_sealed(tmp_path / "planted.jsonl", lines), run.run_id), "commit-verified")
    commit = plant.line_of(lines, "commit", last)
    assert [each.message for each in found] == [
        f"subtask 'rename-definition' ended at step {last} (committed) without a passing check, "
        f"yet the run moved on to step {last + 1}"
    ]
    assert found[0].cites == [f"ledger seq {lines.index(commit) + 1}", f"ledger seq {lines.index(check) + 1}"]


async def test_a_step_the_ledger_lost_is_caught(recorded: dict[str, Recorded], tmp_path: Path) -> None:
    run = recorded["rename"]
    lines = [line for line in plant.ledger_lines(run.ledger) if line["step"] != 5]
    ledger = plant.write_sealed(tmp_path / "planted.jsonl", lines)
    found = caught(both(ledger, run.history, run.run_id), "ledger-matches-history")
    messages = [each.message for each in found]
    assert "step 5: the history records its commit, the ledger has no record of it" in messages
    # The run's last append left the ledger five lines longer than it now is.
    assert any(message.startswith("an append left the ledger at seq ") for message in messages)


async def test_a_ledger_and_a_history_that_disagree_on_a_result_are_caught(
    recorded: dict[str, Recorded], tmp_path: Path
) -> None:
    run = recorded["rename"]
    lines = plant.ledger_lines(run.ledger)
    result = plant.line_of(lines, "tool_result", 1)
    result["payload"]["result"]["idempotency_key"] = "f" * 64
    ledger = plant.write_sealed(tmp_path / "planted.jsonl", lines)
    found = caught(both(ledger, run.history, run.run_id), "ledger-matches-history")
    results = [each for each in found if each.message.startswith("step 1: the ledger's result is ok under key ffff")]
    assert len(results) == 1
    assert results[0].cites[0] == f"ledger seq {lines.index(result) + 1}"
    assert results[0].cites[1].startswith("history event ")
    # Sealed again after the change, every later line's hash changed: the last one the workflow
    # appended (run_finished) is not the line the ledger now holds at its seq.
    rewritten = [each for each in found if each not in results]
    assert [each.message.split(" is not the line")[0] for each in rewritten] == [f"ledger seq {len(lines)}"]


async def test_a_ledger_that_ends_the_run_otherwise_is_caught(recorded: dict[str, Recorded], tmp_path: Path) -> None:
    run = recorded["rename"]
    lines = plant.ledger_lines(run.ledger)
    plant.line_of(lines, "run_finished")["payload"]["outcome"] = "FAILED"
    found = caught(
        both(plant.write_sealed(tmp_path / "planted.jsonl", lines), run.history, run.run_id), "ledger-matches-history"
    )
    assert "the ledger ends the run FAILED, the history COMPLETED" in [each.message for each in found]


async def test_a_ledger_line_edited_in_place_is_caught(recorded: dict[str, Recorded], tmp_path: Path) -> None:
    """Not sealed again: the hash of the changed line no longer matches it."""
    run = recorded["rename"]
    text = run.ledger.read_text().splitlines(keepends=True)
    line = next(number for number, each in enumerate(text) if '"type":"proposal"' in each)
    edited = text[line].replace('"thought":"', '"thought":"planted ', 1)
    assert edited != text[line]
    text[line] = edited
    planted = tmp_path / "planted.jsonl"
    planted.write_text("".join(text))
    found = caught(both(planted, run.history, run.run_id), "ledger-chain-intact")
    assert [str(each) for each in found] == [
        f"the ledger's chain breaks at line {line + 1}: hash does not match the event's content; "
        f"{line} events verify before it (ledger seq {line + 1})"
    ]


# --- the command ---------------------------------------------------------------------------------


def test_check_of_a_run_that_does_not_exist_says_so_in_one_line(
    lab_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    assert main(["check", "no-such-run"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith("error: no run 'no-such-run': no ledger at ")


async def test_check_of_a_run_the_server_does_not_know_says_so_in_one_line(
    env: WorkflowEnvironment, lab_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", env.client.service_client.config.target_host)
    assert await asyncio.to_thread(main, ["check", "no-such-run"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.endswith(", and the server has no workflow no-such-run\n")


@pytest.mark.parametrize(
    ("content", "said"),
    [
        ("# not json\n", "is not a Temporal history: not JSON"),
        ('{"runs": []}', "is not a Temporal history: no `events` list"),
        ('{"events": []}', "is not a Temporal history: it holds no events"),
        ('{"events": [{"eventId": "one"}]}', "is not a Temporal history: its events do not parse"),
    ],
)
def test_check_of_a_file_that_is_not_a_history_says_so_in_one_line(
    content: str, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "history.json"
    path.write_text(content)
    assert main(["check", "--history", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith(f"error: {path} {said}") and err.count("\n") == 1


async def test_check_of_a_real_run_reads_its_history_from_the_server(
    recorded: dict[str, Recorded],
    env: WorkflowEnvironment,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", env.client.service_client.config.target_host)
    run = recorded["approval"]
    assert await check(lab_deps(), run.run_id, None) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"run {run.run_id}"
    assert any(line.startswith("  history: 1 generation, ") and "from the Temporal server at" in line for line in out)
    assert [line.split()[:2] for line in out if line.split()[:1] == ["pass"]] == [["pass", rule] for rule in ALL_RULES]
    assert out[-1] == "clean: 6 rules: 6 pass"


async def test_check_all_passes_over_every_run_recorded_here(
    recorded: dict[str, Recorded], env: WorkflowEnvironment, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Through `main`, as a person runs it (in a thread: it runs its own event loop)."""
    monkeypatch.setenv("TEMPORAL_ADDRESS", env.client.service_client.config.target_host)
    assert await asyncio.to_thread(main, ["check", "--all"]) == 0


async def test_check_all_fails_when_one_run_has_a_violation(
    recorded: dict[str, Recorded], lab_data: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", f"127.0.0.1:{free_port()}")
    run = recorded["rename"]
    planted = lab_deps().ledgers.path("planted-copy")
    lines = plant.ledger_lines(run.ledger)
    plant.line_of(lines, "tool_result", 2)["payload"]["result"]["ok"] = False
    for line in lines:
        line["run_id"] = "planted-copy"
        line["event_id"] = line["event_id"].replace(run.run_id, "planted-copy")
    plant.write_sealed(planted, lines)
    try:
        assert await asyncio.to_thread(main, ["check", "--all"]) == 1
    finally:
        planted.unlink()
    out = capsys.readouterr().out
    assert "FAIL  planted-copy: 6 rules: 3 pass, 1 fail, 2 skipped" in out
    assert "        commit-verified: step 2 committed replace_in_file(" in out
    assert out.splitlines()[-1] == f"{len(recorded) + 1} runs checked: {len(recorded)} clean, 1 with violations"
