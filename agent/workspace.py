"""A fresh copy of a task's fixture for every run; the fixture itself is never touched. A
fixture with an `ops_seed.json` also seeds the run's world in the operations service."""

from __future__ import annotations

import asyncio
import functools
import os
import shutil
import uuid
from pathlib import Path

from agent import checkpoints, ops_world
from agent.conversation import store_turn
from agent.dependencies import Dependencies
from agent.sandbox import report_for
from agent.sandbox.identity import workspace_owner
from agent.tools.files import workspace_files
from contracts import (
    MergeSubtaskInput,
    MergeSubtaskResult,
    PrepareForkInput,
    PrepareForkResult,
    PrepareSubtaskInput,
    PrepareWorkspaceInput,
    PrepareWorkspaceResult,
)
from contracts.errors import WorkspaceError
from contracts.project import project_path

_NOT_COPIED = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.pyc")


def workspace_path(deps: Dependencies, world_id: str) -> Path:
    return deps.workspaces / world_id


async def prepare_workspace(deps: Dependencies, request: PrepareWorkspaceInput) -> PrepareWorkspaceResult:
    """The run's workspace, its first checkpoint, and the sandbox its commands will run in
    (named before the first step: a run that will run unsandboxed says so at its start).
    Raises WorkspaceError, ToolUnavailable (the run's world), CheckpointError or
    SandboxUnavailable."""
    fixture = project_path(request.fixture_dir)
    seed = await asyncio.to_thread(ops_world.seed_file, fixture)
    if seed is not None:
        # Before the copy: a run that cannot reach its world leaves no workspace behind.
        ops_world.require_ops_url(deps.ops_url)
    path = await asyncio.to_thread(_prepare, fixture, workspace_path(deps, request.world_id))
    first = await asyncio.to_thread(checkpoints.init, deps.checkpoints, path)
    if seed is not None:
        await ops_world.seed_world(deps.ops_url, seed, request.world_id)
    sandbox = await asyncio.to_thread(report_for, deps)
    files = await asyncio.to_thread(workspace_files, path)
    return PrepareWorkspaceResult(path=str(path), checkpoint=first, sandbox=sandbox, files=files)


async def prepare_fork(deps: Dependencies, request: PrepareForkInput) -> PrepareForkResult:
    """A forked run's workspace, as its parent's was at the checkpoint it forks from, and its
    subtask's turns so far as the conversation its next proposal refers to. Raises
    CheckpointError where the parent's checkpoints are gone; for a run on the operations
    service, makes its world from its parent's (WorkspaceError, ToolUnavailable)."""
    if request.parent_world_id is not None:
        # Before the workspace, as in prepare_workspace: a fork that cannot have its world
        # leaves no workspace behind.
        await ops_world.fork_world(deps.ops_url, request.parent_world_id, request.world_id, request.effect_keys)
    path = workspace_path(deps, request.world_id)
    await asyncio.to_thread(_make_owned_directory, path)
    await asyncio.to_thread(
        checkpoints.fork, deps.checkpoints, project_path(request.parent_workspace), path, request.checkpoint
    )
    conversation = None
    for turn in request.turns:
        conversation = await asyncio.to_thread(store_turn, deps.artifacts, conversation, turn)
    sandbox = await asyncio.to_thread(report_for, deps)
    return PrepareForkResult(path=str(path), checkpoint=request.checkpoint, sandbox=sandbox, conversation=conversation)


async def prepare_subtask(deps: Dependencies, request: PrepareSubtaskInput) -> PrepareWorkspaceResult:
    """A subtask's workspace: its parent's checkpoint restored into a directory of its own,
    its checkpoints on the branch `subtask/RUN_ID` of the parent's repository, owned (under a
    root worker) by a user of its own as every workspace is. Raises CheckpointError where the
    parent's repository is gone."""
    path = workspace_path(deps, request.run_id)
    await asyncio.to_thread(_make_owned_directory, path)
    parent = project_path(request.parent_workspace)
    branch = f"subtask/{request.run_id}"
    first = await asyncio.to_thread(
        checkpoints.add_worktree, deps.checkpoints, parent, path, branch, request.checkpoint
    )
    sandbox = await asyncio.to_thread(report_for, deps)
    return PrepareWorkspaceResult(path=str(path), checkpoint=first, sandbox=sandbox)


async def merge_subtask(deps: Dependencies, request: MergeSubtaskInput) -> MergeSubtaskResult:
    """A subtask's work merged into its parent's workspace. Raises MergeConflict (the parent's
    workspace left as it was) for the parent to feed back to planning."""
    message = f"merge subtask {request.subtask_id} ({request.subtask_run_id})"
    workspace = project_path(request.workspace)
    merged = await asyncio.to_thread(checkpoints.merge, deps.checkpoints, workspace, request.commit, message)
    return MergeSubtaskResult(checkpoint=merged)


def _make_owned_directory(path: Path) -> None:
    path.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        # As _prepare: a root worker's sandbox runs commands as the workspace's own user.
        os.chown(path, *workspace_owner(path.name))


def _prepare(fixture: Path, target: Path) -> Path:
    """Copy into a scratch directory, then rename: a retry after a crash finds either no
    workspace or a complete one, never half a copy. An existing workspace is kept, since the
    run that owns it may already have worked in it. (Its first checkpoint is made after.)"""
    if target.is_dir():
        return target
    if not fixture.is_dir():
        raise WorkspaceError(f"fixture directory not found: {fixture}")
    target.parent.mkdir(parents=True, exist_ok=True)
    scratch = target.parent / f".{target.name}.{uuid.uuid4().hex[:8]}.partial"
    shutil.copytree(fixture, scratch, ignore=functools.partial(_not_copied, fixture), symlinks=True)
    if os.geteuid() == 0:
        # A root worker's sandbox runs commands as the workspace's owner: a user of this
        # workspace's own, who owns it and nothing else (agent.sandbox.identity).
        _chown_tree(scratch, *workspace_owner(target.name))
    try:
        scratch.rename(target)
    except OSError:
        # Another attempt won the race; its copy is as good as ours.
        shutil.rmtree(scratch, ignore_errors=True)
        if not target.is_dir():
            raise
    return target


def _not_copied(fixture: Path, directory: str, names: list[str]) -> set[str]:
    ignored = set(_NOT_COPIED(directory, names))
    if Path(directory) == fixture and ops_world.SEED_FILE in names:
        ignored.add(ops_world.SEED_FILE)
    return ignored


def _chown_tree(root: Path, uid: int, gid: int) -> None:
    os.chown(root, uid, gid, follow_symlinks=False)
    for directory, subdirs, files in os.walk(root):
        for name in (*subdirs, *files):
            os.chown(os.path.join(directory, name), uid, gid, follow_symlinks=False)
