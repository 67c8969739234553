"""Checkpoints of a workspace: a commit after every committed step that may have changed it
(agent/step_records.py skips the ones that only read), the workspace put back to the last one
after a rejected step, so it only ever holds committed work.

The repository lives outside the workspace (`DATA/checkpoints/`): the agent cannot rewrite its
own checkpoints. Git is its object store and nothing more: it is never given the workspace as a
work tree (agent/checkpoint_git.py says why: a nested repository's config ran a script on the
worker). The workspace is read into a commit (agent/checkpoint_snapshot.py) and a commit is
written back into it (agent/checkpoint_restore.py) from Python, where nothing the workspace
holds is run, followed or blocked on. Files over 8 MiB, FIFOs, devices and sockets are left
out, and the Checkpoint says so for the model to be told; a rollback removes them.

Blocking (git runs as subprocesses, the workspace is walked): async callers run these in a
thread, and each call ends by its deadline (DEADLINE_S). Created files belong to the
workspace's owner (the sandbox's user) when the worker is root.
"""

from __future__ import annotations

import hashlib
import logging
import os
import shutil
import time
from pathlib import Path

from agent.checkpoint_git import STALE_LOCK_S, Git, clear_stale_locks, said
from agent.checkpoint_restore import restore
from agent.checkpoint_snapshot import commit_workspace, left_out_in
from contracts.checkpoints import Checkpoint
from contracts.errors import CheckpointError, MergeConflict

log = logging.getLogger(__name__)

STEP_TRAILER = "Lab-Step"
# Within the 60 s a step's record may take (workflows/activity_options.py RECORD), so a
# checkpoint that cannot finish frees its thread and says why before the activity times out.
DEADLINE_S = 45.0

__all__ = [
    "STALE_LOCK_S",
    "STEP_TRAILER",
    "Checkpoint",
    "CheckpointError",
    "MergeConflict",
    "add_worktree",
    "checkpoint",
    "fork",
    "history",
    "init",
    "merge",
    "repository",
    "rollback",
]


def repository(root: Path, workspace: Path) -> Path:
    """Where a workspace's checkpoints live: one repository per workspace path, under `root`
    (every public function here takes it first: agent.dependencies.Dependencies.checkpoints)."""
    resolved = workspace.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return root / f"{resolved.name}-{digest}.git"


def init(root: Path, workspace: Path) -> str:
    """A repository holding the workspace as its first commit; an existing one is kept."""
    repo = repository(root, workspace)
    if repo.exists() and not _recognised(root, workspace):
        # A worker killed inside `git init` left a directory git does not take for a repository,
        # and every retry failed on it ("not a git repository": the soak found it). It holds no
        # commit, so nothing is lost: it is made again.
        log.warning("removed %s, left by a `git init` that did not finish (a killed worker)", repo)
        shutil.rmtree(repo)
    if repo.exists():
        git = _git(root, workspace)
        head = _head(git)
        if head is not None:
            return head[0]
        # A worker killed between `git init` and the first commit: finish the job. Nothing has
        # run in the workspace yet (the run's steps start after this returns).
    else:
        repo.parent.mkdir(parents=True, exist_ok=True)
        git = _git(root, workspace, must_exist=False)
        # No template: nothing of the system's (sample hooks) in a repository of ours.
        git.run("init", "-q", "--bare", "--template=", "-b", "main")
    first = commit_workspace(git, workspace, _branch(git), None, "fixture", [])
    if first.left_out:
        log.warning("the fixture of %s is not checkpointed whole: %s", workspace, first.note())
    return first.commit


def checkpoint(root: Path, workspace: Path, step: int, message: str) -> Checkpoint:
    """Commit everything as step `step`; what was left out is named in the result. Idempotent:
    if HEAD already is that step's commit (a retry after a crash between commit and record),
    it is returned as is."""
    git = _git(root, workspace)
    head = _head(git)
    if head is not None and f"{STEP_TRAILER}: {step}" in _trailers(head[1]).splitlines():
        named, more = left_out_in(_trailers(head[1]))
        return Checkpoint(commit=head[0], left_out=named, more_left_out=more)
    # One line: a description that held "Lab-Step: N" on a line of its own would pass for step N.
    subject = " ".join(f"step {step}: {message}".split())[:200]
    parent = head[0] if head is not None else None
    return commit_workspace(git, workspace, _branch(git), parent, subject, [f"{STEP_TRAILER}: {step}"])


def rollback(root: Path, workspace: Path, checkpoint_id: str) -> None:
    """Back to exactly the checkpoint: its files as they were, everything else removed (caches
    and files left out of it included), and the checkpoint the branch's head again."""
    git = _git(root, workspace)
    restore(git, workspace, checkpoint_id, _owner(workspace))
    git.run("update-ref", "HEAD", checkpoint_id)


def fork(root: Path, source: Path, target: Path, checkpoint_id: str) -> None:
    """`target` as `source` was at its checkpoint: source's repository copied to be target's
    (every checkpoint of the parent stays reachable), the checkpoint restored in target.
    Idempotent: a target that has its repository already is only rolled back again."""
    if not repository(root, source).is_dir():
        raise CheckpointError(f"{source} has no checkpoints left ({repository(root, source)} is gone)")
    if not repository(root, target).exists():
        scratch = repository(root, target).with_name(repository(root, target).name + ".partial")
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(repository(root, source), scratch, symlinks=True)
        scratch.rename(repository(root, target))
    rollback(root, target, checkpoint_id)


def add_worktree(root: Path, workspace: Path, target: Path, branch: str, checkpoint_id: str) -> str:
    """`target` a subtask's workspace: the checkpoint restored into it, its checkpoints on a
    new branch `branch` of `workspace`'s repository. Its git directory, `repository(root, target)`,
    holds only its own HEAD (on `branch`) and names the parent's repository as its common
    directory (git's own layout for worktrees), so its commits land in the parent's object
    store and merge back without a copy. No git work tree is involved. Idempotent: a target
    that has its repository already is only rolled back to the checkpoint (a retry after a
    crash). Returns the checkpoint."""
    if not repository(root, target).exists():
        parent = _git(root, workspace)
        parent.run("update-ref", f"refs/heads/{branch}", checkpoint_id)
        scratch = repository(root, target).with_name(repository(root, target).name + ".partial")
        shutil.rmtree(scratch, ignore_errors=True)
        scratch.mkdir(parents=True)
        (scratch / "commondir").write_text(f"{repository(root, workspace).resolve()}\n")
        (scratch / "HEAD").write_text(f"ref: refs/heads/{branch}\n")
        scratch.rename(repository(root, target))
    target.mkdir(parents=True, exist_ok=True)
    rollback(root, target, checkpoint_id)
    return checkpoint_id


def merge(root: Path, workspace: Path, commit: str, message: str) -> str:
    """Merge `commit` (a subtask's last checkpoint) into the workspace, always as a merge commit
    (the history shows which subtask brought what), computed in the object store and then
    restored into the workspace. Raises MergeConflict naming the files, the workspace left as
    it was. Idempotent: a commit merged already is not merged again."""
    git = _git(root, workspace)
    head = _head(git)
    if head is None:
        raise CheckpointError(f"{workspace} has no checkpoint to merge {commit[:12]} into")
    if git.run("merge-base", "--is-ancestor", commit, head[0], codes=(0, 1)).returncode == 0:
        return head[0]
    merged = git.run("merge-tree", "--write-tree", "--no-messages", "--name-only", "-z", head[0], commit, codes=(0, 1))
    fields = [field for field in merged.stdout.split(b"\0") if field]
    if not fields:
        raise CheckpointError(f"git merge-tree gave no tree merging {commit[:12]} into {workspace.name}")
    tree, *conflicted = fields
    if merged.returncode == 1:
        names = ", ".join(dict.fromkeys(os.fsdecode(name) for name in conflicted))
        raise MergeConflict(f"{message}: conflicts in {names or 'the tree'}")
    made = git.run("commit-tree", tree.decode("ascii"), "-p", head[0], "-p", commit, "-F", "-", stdin=message.encode())
    merge_commit = made.stdout.decode("ascii").strip()
    # The workspace first, then the branch: a retry after a crash between them merges again
    # (the same tree), where the other order would find the merge done and the workspace not.
    restore(git, workspace, merge_commit, _owner(workspace))
    git.run("update-ref", "HEAD", merge_commit, head[0])
    return merge_commit


def history(root: Path, workspace: Path) -> list[tuple[str, str]]:
    """The checkpoints, newest first: (commit id, subject)."""
    lines = _git(root, workspace).out("log", "--format=%H %s").splitlines()
    return [(line[:40], line[41:]) for line in lines]


def _git(root: Path, workspace: Path, must_exist: bool = True) -> Git:
    repo = repository(root, workspace)
    if must_exist and not repo.exists():
        raise CheckpointError(f"{workspace} has no checkpoint repository ({repo})")
    clear_stale_locks(repo)
    return Git(repo, time.monotonic() + DEADLINE_S)


def _recognised(root: Path, workspace: Path) -> bool:
    try:
        _git(root, workspace).run("rev-parse", "--git-dir")
    except CheckpointError:
        return False
    return True


def _head(git: Git) -> tuple[str, str] | None:
    """HEAD's commit id and message; None before the first commit."""
    done = git.run("log", "-1", "--format=%H%x00%B", codes=(0, 128))
    if done.returncode == 128:
        if b"does not have any commits" in done.stderr:
            return None
        raise CheckpointError(f"cannot read the last checkpoint of {git.git_dir}: {said(done.stderr)}")
    commit, _, message = done.stdout.decode("utf-8", "replace").partition("\0")
    return commit.strip(), message


def _branch(git: Git) -> str:
    """The branch HEAD is on: `main`, or a subtask's (add_worktree)."""
    head = git.git_dir / "HEAD"
    if git.git_dir.is_file():
        # A subtask's repository made before add_worktree made directories: a `gitdir:` file.
        head = Path(git.git_dir.read_text().removeprefix("gitdir:").strip()) / "HEAD"
    ref = head.read_text().strip().removeprefix("ref:").strip()
    if not ref.startswith("refs/heads/"):
        raise CheckpointError(f"{git.git_dir} has a detached HEAD ({ref[:12]}): no branch to checkpoint on")
    return ref


def _trailers(message: str) -> str:
    """The message's last paragraph, where a commit's trailers are."""
    return message.strip().rsplit("\n\n", 1)[-1] if "\n\n" in message.strip() else ""


def _owner(workspace: Path) -> tuple[int, int] | None:
    """Whom created entries belong to: the workspace's owner, when a root worker writes for a
    sandbox that runs as that user; None (whoever writes) otherwise."""
    info = workspace.stat()
    if os.geteuid() != 0 or (info.st_uid, info.st_gid) == (0, 0):
        return None
    return info.st_uid, info.st_gid
