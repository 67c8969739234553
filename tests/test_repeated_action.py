"""The repeated-action guard: the same call on unchanged files is refused by the verifier, with
what it returned last time; once the files change it is allowed again. The durable runtime and
the baseline+verifier arm have it; the plain baseline does not."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
import yaml
from temporalio.client import Client

from agent.fingerprint import workspace_fingerprint
from agent.verification import executed_call, verify
from baseline import BaselineLoop
from contracts import ActionProposal, FileContains, ProviderConfig, ReasonCode, RunRequest, RunState, ToolResult
from host.build import build_worker
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run

READ = {"tool": "read_file", "arguments": {"path": "notes.txt"}}
WRITE = {"tool": "write_file", "arguments": {"path": "notes.txt", "content": "done\n"}}


def _proposal(action: dict[str, object]) -> ActionProposal:
    return ActionProposal(kind="tool_call", **action)  # type: ignore[arg-type]


def _ran(workspace: Path, step: int, action: dict[str, object], output: str = "todo") -> tuple:
    proposal = _proposal(action)
    verdict = verify(workspace, proposal, executed=[])
    call = executed_call(step, proposal, verdict, ToolResult(tool=proposal.tool or "", ok=True, output=output))
    assert call is not None
    return proposal, call


def test_the_same_call_on_the_same_files_is_refused_with_what_it_returned(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("todo\n")
    proposal, call = _ran(tmp_path, 3, READ, output="todo")

    verdict = verify(tmp_path, proposal, executed=[call])

    assert verdict.decision == "reject"
    assert verdict.reason_code == ReasonCode.REPEATED_ACTION
    assert "step 3" in verdict.message and "read_file: ok (todo)" in verdict.message


def test_a_change_to_the_files_lets_the_call_run_again(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("todo\n")
    proposal, call = _ran(tmp_path, 1, READ)
    (tmp_path / "notes.txt").write_text("done\n")

    assert verify(tmp_path, proposal, executed=[call]).allowed


def test_other_arguments_are_another_call(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("todo\n")
    (tmp_path / "other.txt").write_text("x\n")
    _, call = _ran(tmp_path, 1, READ)

    assert verify(
        tmp_path, _proposal({"tool": "read_file", "arguments": {"path": "other.txt"}}), executed=[call]
    ).allowed


def test_caches_a_test_run_leaves_do_not_count_as_a_change(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("todo\n")
    before = workspace_fingerprint(tmp_path)
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.cpython-312.pyc").write_bytes(b"\0")
    (tmp_path / ".pytest_cache").mkdir()
    (tmp_path / ".pytest_cache" / "v").write_text("1")

    assert workspace_fingerprint(tmp_path) == before
    (tmp_path / "new.txt").write_text("")
    assert workspace_fingerprint(tmp_path) != before


def test_a_file_tools_failure_is_remembered_and_other_failures_are_not(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("todo\n")
    proposal = _proposal(READ)
    verdict = verify(tmp_path, proposal, executed=[])
    failed = ToolResult(tool="read_file", ok=False, error="edit refused, m.py left unchanged: it would not compile")

    # The same file tool on the same files fails the same way: refused, saying how it failed.
    remembered = executed_call(1, proposal, verdict, failed)
    assert remembered is not None
    again = verify(tmp_path, proposal, executed=[remembered])
    assert again.reason_code == ReasonCode.REPEATED_ACTION
    assert "returned: read_file: error: edit refused, m.py left unchanged" in again.message
    # A timeout or an injected fault may not happen again; a command's failure may not either.
    assert executed_call(1, proposal, verdict, failed.model_copy(update={"timed_out": True})) is None
    assert executed_call(1, proposal, verdict, failed.model_copy(update={"fault_injected": True})) is None
    command = ActionProposal(tool="run_command", arguments={"command": "python -m pytest -q"})
    command_verdict = verify(tmp_path, command, executed=[])
    assert executed_call(1, command, command_verdict, ToolResult(tool="run_command", ok=False, error="x")) is None

    policy_only = verify(tmp_path, proposal)
    assert policy_only.fingerprint == ""
    assert executed_call(1, proposal, policy_only, ToolResult(tool="read_file", ok=True)) is None


def _request(tmp_path: Path, runtime: str, **overrides: object) -> RunRequest:
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "notes.txt").write_text("todo\n")
    # Read, read again (nothing changed), change the file, read again (now a new observation),
    # then the write that ends the task.
    half = {"tool": "write_file", "arguments": {"path": "notes.txt", "content": "halfway\n"}}
    actions = [READ, READ, half, READ, WRITE, {"kind": "finish"}]
    done = {"kind": "file_contains", "path": "notes.txt", "text": "done"}
    script = {
        "goal": {"summary": "write done into notes.txt"},
        "plan": [{"id": "notes", "title": "Finish the notes", "postconditions": [done], "actions": actions}],
    }
    (tmp_path / "script.yaml").write_text(yaml.safe_dump(script))
    return RunRequest(
        run_id=f"{runtime}-repeat-{uuid.uuid4().hex[:8]}",
        runtime=runtime,  # type: ignore[arg-type]
        task_id="repeat",
        goal="Write done into notes.txt.",
        fixture_dir=str(fixture),
        acceptance=[FileContains(path="notes.txt", text="done")],
        provider=ProviderConfig(script_path=str(tmp_path / "script.yaml")),
        **overrides,  # type: ignore[arg-type]
    )


async def test_the_durable_runtime_refuses_a_repeated_call_as_a_recorded_step(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    async with build_worker(client, task_queue):
        result = await execute_run(client, _request(tmp_path, "durable"), task_queue)

    assert result.outcome == RunState.COMPLETED
    codes = [step.verdict.reason_code if step.verdict else None for step in result.steps]
    assert codes[:2] == [ReasonCode.ALLOWED, ReasonCode.REPEATED_ACTION], codes
    assert result.steps[1].outcome == "rejected" and result.steps[1].result == ""
    assert "same call ran at step 1" in result.steps[1].reason
    # After the write the same read is a new observation.
    assert codes[3] == ReasonCode.ALLOWED and result.steps[3].outcome == "committed"


@pytest.mark.parametrize("baseline_verifies", [False, True])
async def test_only_the_baseline_with_a_verifier_has_the_guard(tmp_path: Path, baseline_verifies: bool) -> None:
    request = _request(tmp_path, "baseline", baseline_verifies=baseline_verifies)
    result = await BaselineLoop(lab_deps(), retry_delay_s=0).run(request)

    assert result.outcome == RunState.COMPLETED
    second = result.steps[1]
    if baseline_verifies:
        assert second.outcome == "rejected" and second.verdict is not None
        assert second.verdict.reason_code == ReasonCode.REPEATED_ACTION
    else:
        assert second.outcome == "committed" and second.result.startswith("read_file")
