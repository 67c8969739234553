"""Git checkpoints: a commit per committed step, a rollback after a rejected one, and a retried
workspace tool that starts again from the last checkpoint."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from temporalio.client import Client

from agent import checkpoint_git, checkpoints
from agent.conversation import load_turns
from agent.effects.keys import idempotency_key
from agent.execution import execute
from agent.ledger import read_events, verify_ledger
from agent.sandbox.identity import workspace_owner
from agent.step_records import record_step
from contracts import ActionProposal, ExecuteToolInput, FileContains, ProviderConfig, RunRequest, RunState, Turn
from contracts.envelopes import RecordStepInput
from contracts.ledger import LedgerEntry
from host.build import build_worker
from tests.lab_dependencies import lab_deps
from tests.runs import execute_run


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "a.txt").write_text("one\n")
    return path


def test_init_commits_the_fixture_and_is_idempotent(workspace: Path) -> None:
    first = checkpoints.init(lab_deps().checkpoints, workspace)
    assert checkpoints.init(lab_deps().checkpoints, workspace) == first
    assert checkpoints.history(lab_deps().checkpoints, workspace) == [(first, "fixture")]


def test_checkpoint_is_idempotent_per_step(workspace: Path) -> None:
    checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "a.txt").write_text("two\n")
    one = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "edit a").commit
    # A retry after a crash between the commit and its record finds the same commit.
    assert checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "edit a").commit == one
    (workspace / "b.txt").write_text("b\n")
    two = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 2, "add b").commit
    assert two != one
    assert [sha for sha, _ in checkpoints.history(lab_deps().checkpoints, workspace)][:2] == [two, one]


def test_rollback_restores_exactly_the_checkpoint(workspace: Path) -> None:
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "a.txt").write_text("broken\n")
    (workspace / "junk").mkdir()
    (workspace / "junk" / "x.pyc").write_bytes(b"\0")
    (workspace / ".pytest_cache").mkdir()
    checkpoints.rollback(lab_deps().checkpoints, workspace, start)
    assert (workspace / "a.txt").read_text() == "one\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["a.txt"]


@pytest.mark.skipif(os.geteuid() != 0, reason="ownership is handed back only by a root worker")
def test_what_a_rollback_writes_belongs_to_the_workspace_owner(workspace: Path) -> None:
    uid, gid = workspace_owner(workspace.name)
    for path in (workspace, workspace / "a.txt"):
        os.chown(path, uid, gid)
    checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "a.txt").write_text("two\n")
    (workspace / "d").mkdir()
    (workspace / "d" / "b.txt").write_text("b\n")
    (workspace / "d" / "link").symlink_to("b.txt")
    made = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "edit").commit
    shutil.rmtree(workspace / "d")
    (workspace / "a.txt").unlink()
    # What a rollback writes (a file, a directory, a link) is the owner's, as the rest.
    checkpoints.rollback(lab_deps().checkpoints, workspace, made)
    assert (workspace / "d" / "b.txt").read_text() == "b\n"
    assert {(p.lstat().st_uid, p.lstat().st_gid) for p in workspace.rglob("*")} == {(uid, gid)}


def test_a_removed_repository_is_a_clear_error(workspace: Path) -> None:
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    shutil.rmtree(checkpoints.repository(lab_deps().checkpoints, workspace))
    with pytest.raises(checkpoints.CheckpointError, match="no checkpoint repository"):
        checkpoints.rollback(lab_deps().checkpoints, workspace, start)


async def test_a_retried_workspace_tool_starts_from_the_last_checkpoint(workspace: Path) -> None:
    """Intent recorded, no effect: the attempt died mid-way. The retry resets the workspace to
    the checkpoint first, so the step acts once, on a clean tree."""
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    proposal = ActionProposal(tool="replace_in_file", arguments={"path": "a.txt", "old": "one", "new": "one one"})
    run_id = f"retry-{uuid.uuid4().hex[:8]}"
    request = ExecuteToolInput(workspace=str(workspace), proposal=proposal, run_id=run_id, step=1, checkpoint=start)
    key = idempotency_key(run_id, 1, "replace_in_file", {"path": "a.txt", "old": "one", "new": "one one"})
    await asyncio.to_thread(lab_deps().effects.record_intent, key, run_id, 1, "replace_in_file", "{}")
    # What the dying attempt left: the edit already applied, and some debris.
    (workspace / "a.txt").write_text("one one\n")
    (workspace / "half-written.tmp").write_text("x")

    result = await execute(lab_deps(), request)

    assert result.ok and result.idempotency_key == key
    assert (workspace / "a.txt").read_text() == "one one\n"  # applied once, not "one one one"
    assert not (workspace / "half-written.tmp").exists()


async def test_a_durable_run_commits_each_changing_step_and_rolls_back_a_failed_one(
    client: Client, task_queue: str, tmp_path: Path
) -> None:
    fixture = tmp_path / "fixture"
    fixture.mkdir()
    (fixture / "notes.txt").write_text("todo\n")
    actions = [
        {"tool": "write_file", "arguments": {"path": "draft.txt", "content": "draft\n"}},
        # Only reads: nothing to commit, its checkpoint is step 1's.
        {"tool": "read_file", "arguments": {"path": "draft.txt"}},
        # Writes a file, then runs out of time: a failed step whose debris must go.
        {"tool": "run_command", "arguments": {"command": "echo partial > partial.txt; sleep 30", "timeout_s": 0.5}},
        {"tool": "write_file", "arguments": {"path": "notes.txt", "content": "done\n"}},
    ]
    done = {"kind": "file_contains", "path": "notes.txt", "text": "done"}
    script = {
        "goal": {"summary": "notes"},
        "plan": [{"id": "t", "title": "t", "postconditions": [done], "actions": actions}],
    }
    (tmp_path / "script.yaml").write_text(yaml.safe_dump(script))
    request = RunRequest(
        run_id=f"durable-checkpoints-{uuid.uuid4().hex[:8]}",
        runtime="durable",
        task_id="checkpoints",
        goal="Write done into notes.txt.",
        fixture_dir=str(fixture),
        acceptance=[FileContains(path="notes.txt", text="done")],
        provider=ProviderConfig(script_path=str(tmp_path / "script.yaml")),
    )
    async with build_worker(client, task_queue):
        result = await execute_run(client, request, task_queue)

    assert result.outcome == RunState.COMPLETED
    assert [s.outcome for s in result.steps] == ["committed", "committed", "rejected", "committed"]
    workspace = Path(result.workspace)
    assert not (workspace / "partial.txt").exists()
    assert (workspace / "draft.txt").read_text() == "draft\n"
    commits = checkpoints.history(lab_deps().checkpoints, workspace)
    assert result.checkpoint == commits[0][0]
    assert [subject.split(":")[0] for _, subject in commits] == ["step 4", "step 1", "fixture"]
    events = read_events(lab_deps().ledgers.path(request.run_id))
    closing = [e for e in events if e.type in ("commit", "rollback")]
    assert [(e.type, e.step) for e in closing] == [("commit", 1), ("commit", 2), ("rollback", 3), ("commit", 4)]
    assert closing[1].payload["checkpoint"] == closing[0].payload["checkpoint"] == commits[1][0]
    assert verify_ledger(lab_deps().ledgers.path(request.run_id)).ok


def test_a_lock_left_by_a_killed_commit_is_cleared_and_the_step_commits(workspace: Path) -> None:
    """A worker SIGKILLed inside `git commit` leaves HEAD.lock; the retried step must commit."""
    checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "a.txt").write_text("changed\n")
    repo = checkpoints.repository(lab_deps().checkpoints, workspace)
    for name in ("HEAD.lock", "index.lock", "refs/heads/main.lock"):
        lock = repo / name
        lock.touch()
        stale = time.time() - checkpoints.STALE_LOCK_S - 1
        os.utime(lock, (stale, stale))
    one = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "edit a").commit
    assert checkpoints.history(lab_deps().checkpoints, workspace)[0] == (one, "step 1: edit a")
    assert not list(repo.glob("*.lock")) and not list(repo.glob("refs/heads/*.lock"))


def test_a_fresh_lock_is_waited_for_before_it_counts_as_left_behind(workspace: Path) -> None:
    checkpoints.init(lab_deps().checkpoints, workspace)
    (checkpoints.repository(lab_deps().checkpoints, workspace) / "index.lock").touch()
    started = time.monotonic()
    checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "edit")
    assert time.monotonic() - started >= checkpoints.STALE_LOCK_S * 0.9


def test_a_repository_left_without_its_first_commit_is_finished(workspace: Path) -> None:
    """A worker killed between `git init` and the fixture's commit."""
    repo = checkpoints.repository(lab_deps().checkpoints, workspace)
    repo.parent.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_DIR": str(repo), "GIT_WORK_TREE": str(workspace)}
    subprocess.run(["git", "init", "-q", "-b", "main"], env=env, check=True, cwd=workspace)
    first = checkpoints.init(lab_deps().checkpoints, workspace)
    assert checkpoints.history(lab_deps().checkpoints, workspace) == [(first, "fixture")]


@pytest.mark.parametrize("left", ["empty", "no HEAD"])
def test_a_repository_left_half_made_by_git_init_is_made_again(workspace: Path, left: str) -> None:
    """A worker killed inside `git init`: its directory is not a repository to git, and every
    retry of the workspace's preparation failed on it (found by the soak)."""
    repo = checkpoints.repository(lab_deps().checkpoints, workspace)
    repo.parent.mkdir(parents=True, exist_ok=True)
    if left == "empty":
        repo.mkdir()
    else:
        env = {**os.environ, "GIT_DIR": str(repo), "GIT_WORK_TREE": str(workspace)}
        subprocess.run(["git", "init", "-q", "-b", "main"], env=env, check=True, cwd=workspace)
        (repo / "HEAD").unlink()
    first = checkpoints.init(lab_deps().checkpoints, workspace)
    assert checkpoints.history(lab_deps().checkpoints, workspace) == [(first, "fixture")]


def test_modes_and_links_come_back_with_a_rollback(workspace: Path) -> None:
    (workspace / "run.sh").write_text("echo hi\n")
    (workspace / "run.sh").chmod(0o755)
    (workspace / "link").symlink_to("a.txt")
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "run.sh").chmod(0o644)
    (workspace / "link").unlink()
    (workspace / "link").mkdir()
    checkpoints.rollback(lab_deps().checkpoints, workspace, start)
    assert (workspace / "run.sh").stat().st_mode & 0o777 == 0o755
    assert os.readlink(workspace / "link") == "a.txt"


def test_a_message_cannot_pass_for_a_later_steps_commit(workspace: Path) -> None:
    """The idempotency trailer is read from the commit's last paragraph, and the subject is one
    line: a description holding `Lab-Step: 2` does not make step 2's checkpoint a no-op."""
    checkpoints.init(lab_deps().checkpoints, workspace)
    one = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, f"x\n\n{checkpoints.STEP_TRAILER}: 2").commit
    (workspace / "a.txt").write_text("step two\n")
    two = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 2, "edit").commit
    assert two != one


def test_a_subtask_checkpoints_on_its_own_branch_and_merges_back(workspace: Path, tmp_path: Path) -> None:
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    left, right = tmp_path / "left", tmp_path / "right"
    assert checkpoints.add_worktree(lab_deps().checkpoints, workspace, left, "subtask/left", start) == start
    checkpoints.add_worktree(lab_deps().checkpoints, workspace, right, "subtask/right", start)
    assert (left / "a.txt").read_text() == "one\n"
    (left / "l.txt").write_text("left\n")
    (right / "r.txt").write_text("right\n")
    done_left = checkpoints.checkpoint(lab_deps().checkpoints, left, 1, "left").commit
    done_right = checkpoints.checkpoint(lab_deps().checkpoints, right, 1, "right").commit
    # The subtasks' commits are on their branches; the parent's history is its own.
    assert checkpoints.history(lab_deps().checkpoints, workspace) == [(start, "fixture")]
    first = checkpoints.merge(lab_deps().checkpoints, workspace, done_left, "merge left")
    second = checkpoints.merge(lab_deps().checkpoints, workspace, done_right, "merge right")
    assert checkpoints.merge(lab_deps().checkpoints, workspace, done_right, "merge right") == second  # merged already
    assert sorted(path.name for path in workspace.iterdir()) == ["a.txt", "l.txt", "r.txt"]
    assert [subject for _, subject in checkpoints.history(lab_deps().checkpoints, workspace)][:2] == [
        "merge right",
        "merge left",
    ]
    assert first != second


def test_a_conflict_names_its_files_and_leaves_the_workspace_as_it_was(workspace: Path, tmp_path: Path) -> None:
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    left, right = tmp_path / "left", tmp_path / "right"
    for target, text in ((left, "left\n"), (right, "right\n")):
        checkpoints.add_worktree(lab_deps().checkpoints, workspace, target, f"subtask/{target.name}", start)
        (target / "a.txt").write_text(text)
    done_left = checkpoints.checkpoint(lab_deps().checkpoints, left, 1, "left").commit
    done_right = checkpoints.checkpoint(lab_deps().checkpoints, right, 1, "right").commit
    merged = checkpoints.merge(lab_deps().checkpoints, workspace, done_left, "merge left")
    with pytest.raises(checkpoints.MergeConflict, match=r"merge right: conflicts in a\.txt"):
        checkpoints.merge(lab_deps().checkpoints, workspace, done_right, "merge right")
    assert (workspace / "a.txt").read_text() == "left\n"
    assert checkpoints.history(lab_deps().checkpoints, workspace)[0][0] == merged


def test_an_unknown_checkpoint_is_a_clear_error(workspace: Path) -> None:
    checkpoints.init(lab_deps().checkpoints, workspace)
    with pytest.raises(checkpoints.CheckpointError, match="no checkpoint 0123456789ab to go back to"):
        checkpoints.rollback(lab_deps().checkpoints, workspace, "0123456789abcdef0123456789abcdef01234567")
    assert (workspace / "a.txt").read_text() == "one\n"


async def test_what_a_checkpoint_left_out_reaches_the_model_and_the_ledger(workspace: Path) -> None:
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    os.mkfifo(workspace / "pipe")
    run_id = f"left-out-{uuid.uuid4().hex[:8]}"
    now = datetime.now(UTC)
    wrote = LedgerEntry(
        event_id=f"{run_id}/step-1/tool_result",
        type="tool_result",
        run_id=run_id,
        time=now,
        step=1,
        payload={"tool": "run_command"},
    )
    turn = Turn(step=1, proposal=None, outcome="committed", feedback="ran")
    request = RecordStepInput(
        run_id=run_id,
        workspace=str(workspace),
        step=1,
        action="commit",
        checkpoint=start,
        message="mkfifo",
        entries=[wrote],
        turn=turn,
    )
    recorded = await record_step(lab_deps(), request)
    [told] = load_turns(lab_deps().artifacts, recorded.conversation)
    assert (
        told.feedback
        == "ran\nLeft out of the checkpoint (a rollback to it removes them): pipe (a FIFO, socket or device)."
    )
    [commit] = [event for event in read_events(lab_deps().ledgers.path(run_id)) if event.type == "commit"]
    assert commit.payload == {"checkpoint": recorded.checkpoint, "left_out": ["pipe"]}


def test_the_packs_each_checkpoint_writes_are_made_one_when_they_pile_up(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(checkpoint_git, "MAX_PACKS", 2)
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    made = []
    for step in range(1, 6):
        (workspace / "a.txt").write_text(f"step {step}\n")
        made.append(checkpoints.checkpoint(lab_deps().checkpoints, workspace, step, "edit").commit)
    packs = list((checkpoints.repository(lab_deps().checkpoints, workspace) / "objects" / "pack").glob("*.pack"))
    assert 1 <= len(packs) <= 3
    # Nothing lost: the earliest checkpoint and every step's are still there to go back to.
    checkpoints.rollback(lab_deps().checkpoints, workspace, made[1])
    assert (workspace / "a.txt").read_text() == "step 2\n"
    checkpoints.rollback(lab_deps().checkpoints, workspace, start)
    assert (workspace / "a.txt").read_text() == "one\n"
