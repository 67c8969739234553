"""A hostile workspace, end to end, with the verifier bypassed: every proposal of an attacker
runs as the worker runs an allowed one (the tool in the real sandbox, then the step's record:
checkpoint and ledger), and after each the worker must still answer the next proposal (its
verification, which fingerprints the workspace, and a tool that reads it) within its timeouts.
Nothing the workspace holds may run anything outside the sandbox: a canary outside the
workspace, which the planted git configuration tries to write, must stay as it was.

Each attack is one the red team ran against the host-side code: a nested repository whose
config (`core.fsmonitor`, a clean filter from `info/attributes`) names a workspace script,
hidden behind a `gitdir:` file; a repository with no commit; a FIFO; a tree 1,100 levels deep;
a 64 MiB file; a line built for a catastrophic regex; a write to the workspace's root.
"""

from __future__ import annotations

import asyncio
import subprocess
import uuid
from collections.abc import Awaitable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

import pytest

from agent import checkpoints
from agent.execution import execute
from agent.sandbox.bubblewrap import available
from agent.step_records import record_step
from agent.verification import verify
from contracts import ActionProposal, ExecuteToolInput, ToolResult
from contracts.envelopes import RecordStepInput
from contracts.ledger import LedgerEntry
from tests.conftest import sandbox_workspace
from tests.lab_dependencies import lab_deps

pytestmark = pytest.mark.skipif(not available(), reason="bubblewrap cannot sandbox commands here")

# Far above what any of these takes when nothing hangs (a second or two), far below the test's
# own timeout: a hang fails the step that hung, by name.
ANSWER_WITHIN_S = 60.0
UNTOUCHED = "untouched\n"
T = TypeVar("T")


def _identity() -> str:
    return "git -c user.name=a -c user.email=a@example.com"


def attacks(canary: Path) -> list[tuple[str, str]]:
    """(name, command): each run in the sandbox as an allowed proposal would be."""
    git = _identity()
    script = f"printf 'echo escaped-as-$(id -u) >> {canary}\\n' > evil.sh"
    return [
        (
            "nested repository, its .git hidden behind a gitdir: file, fsmonitor naming a script",
            f"{script} && mkdir sub && cd sub && {git} init -q && echo x > f && {git} add f"
            f" && {git} commit -q -m x && mv .git ../hidden && echo 'gitdir: ../hidden' > .git"
            " && cd .. && git --git-dir hidden config core.fsmonitor 'sh /workspace/evil.sh'",
        ),
        (
            "the same repository's clean filter, named from info/attributes",
            "mkdir -p hidden/info && echo '* filter=x' > hidden/info/attributes"
            " && git --git-dir hidden config filter.x.clean 'sh /workspace/evil.sh' && echo changed > sub/f",
        ),
        ("a repository with no commit", f"mkdir empty && cd empty && {git} init -q"),
        ("a FIFO", "mkfifo pipe"),
        (
            "a tree 1,100 levels deep",
            "python3 -c \"import os\nfor _ in range(1100):\n    os.mkdir('d'); os.chdir('d')\"",
        ),
        ("a 64 MiB file of short lines", "yes 0123456789abcdef | head -c 67108864 > big.txt"),
        ("a line built for a catastrophic regex", "python3 -c \"open('aaa.txt', 'w').write('a' * 40 + '!')\""),
    ]


# What the worker is asked next, after each attack: each reads or writes the workspace on the host.
NEXT = [
    ActionProposal(kind="tool_call", tool="list_files", arguments={"path": "."}),
    ActionProposal(kind="tool_call", tool="read_file", arguments={"path": "big.txt", "start_line": 1000}),
    ActionProposal(kind="tool_call", tool="read_file", arguments={"path": "pipe"}),
    ActionProposal(kind="tool_call", tool="search", arguments={"pattern": "(a+)+$", "regex": True}),
    ActionProposal(kind="tool_call", tool="write_file", arguments={"path": ".", "content": "x"}),
    ActionProposal(kind="tool_call", tool="write_file", arguments={"path": "notes.md", "content": "ok\n"}),
]


async def _within(what: str, work: Awaitable[T]) -> T:
    try:
        return await asyncio.wait_for(work, ANSWER_WITHIN_S)
    except TimeoutError:
        pytest.fail(f"the worker did not answer within {ANSWER_WITHIN_S:g} s: {what}")


async def _run(workspace: Path, run_id: str, step: int, proposal: ActionProposal) -> ToolResult:
    request = ExecuteToolInput(workspace=str(workspace), proposal=proposal, run_id=run_id, step=step)
    return await _within(f"step {step}: {proposal.tool} {proposal.arguments}", execute(lab_deps(), request))


async def _record(workspace: Path, run_id: str, step: int, checkpoint: str) -> str:
    wrote = LedgerEntry(
        event_id=f"{run_id}/step-{step}/tool_result",
        type="tool_result",
        run_id=run_id,
        time=datetime.now(UTC),
        step=step,
        payload={"tool": "run_command"},
    )
    request = RecordStepInput(
        run_id=run_id,
        workspace=str(workspace),
        step=step,
        action="commit",
        checkpoint=checkpoint,
        message=f"step {step}",
        entries=[wrote],
    )
    recorded = await _within(f"step {step}'s checkpoint", record_step(lab_deps(), request))
    return recorded.checkpoint


async def test_no_workspace_content_runs_outside_the_sandbox_or_stops_the_worker(tmp_path: Path) -> None:
    workspace = sandbox_workspace(tmp_path)
    (workspace / "README.md").write_text("a project\n")
    canary = tmp_path / "canary"
    canary.write_text(UNTOUCHED)
    run_id = f"hostile-{uuid.uuid4().hex[:8]}"
    checkpoint = await asyncio.to_thread(checkpoints.init, lab_deps().checkpoints, workspace)
    first = checkpoint
    step = 0
    for name, command in attacks(canary):
        step += 1
        attack = ActionProposal(kind="tool_call", tool="run_command", arguments={"command": command})
        ran = await _run(workspace, run_id, step, attack)
        assert ran.ok, f"{name}: the attack itself failed in the sandbox: {ran.error} {ran.output}"
        checkpoint = await _record(workspace, run_id, step, checkpoint)
        for after in NEXT:
            # Verification fingerprints the whole workspace on the host (the repeated-action check).
            verdict = await _within(
                f"verifying {after.tool} after {name}",
                asyncio.to_thread(verify, workspace, after, executed=[]),
            )
            assert verdict.reason_code is not None, name
            step += 1
            result = await _run(workspace, run_id, step, after)
            assert result.tool == after.tool, name
        assert canary.read_text() == UNTOUCHED, f"{name}: code ran on the host"

    # The worker still does its work: a write, a checkpoint of it, and a rollback to the start.
    assert (workspace / "notes.md").read_text() == "ok\n"
    await _record(workspace, run_id, step + 1, checkpoint)
    await _within(
        "rolling back to the first checkpoint",
        asyncio.to_thread(checkpoints.rollback, lab_deps().checkpoints, workspace, first),
    )
    assert sorted(path.name for path in workspace.iterdir()) == ["README.md"]
    assert canary.read_text() == UNTOUCHED


async def test_the_answers_after_the_attacks_say_what_stopped_them(tmp_path: Path) -> None:
    """Not only prompt: each answer is a typed result the model can act on."""
    workspace = sandbox_workspace(tmp_path)
    run_id = f"hostile-{uuid.uuid4().hex[:8]}"
    await asyncio.to_thread(checkpoints.init, lab_deps().checkpoints, workspace)
    for step, (_, command) in enumerate(attacks(tmp_path / "canary")[3:], start=1):
        setup = ActionProposal(kind="tool_call", tool="run_command", arguments={"command": command})
        assert (await _run(workspace, run_id, step, setup)).ok
    said = {}
    for step, after in enumerate(NEXT[:5], start=10):
        result = await _run(workspace, run_id, step, after)
        said[f"{after.tool} {after.arguments.get('path', after.arguments.get('pattern'))}"] = result
    assert said["read_file big.txt"].ok and "1000|" in said["read_file big.txt"].output
    assert not said["read_file pipe"].ok and "FIFO" in (said["read_file pipe"].error or "")
    assert not said["search (a+)+$"].ok and "stopped at its" in (said["search (a+)+$"].error or "")
    assert not said["write_file ."].ok and "the workspace itself" in (said["write_file ."].error or "")
    assert said["list_files ."].ok


@pytest.fixture(autouse=True)
def _deep_trees_removed(tmp_path: Path) -> Iterator[None]:
    """pytest's own clean-up of tmp_path recurses (shutil.rmtree), and a tree 1,100 levels
    deep would crash it at the session's end: rm removes it iteratively."""
    yield
    subprocess.run(["rm", "-rf", str(tmp_path)], check=False, timeout=120)
