"""Git checkpoints of a workspace: a commit after every committed step that may have changed it
(agent/step_records.py skips the ones that only read), a hard reset back to
the last one after a rejected step, so the workspace only ever holds committed work.

The repository lives outside the workspace (`DATA/checkpoints/`, git's GIT_DIR with the
workspace as its work tree): the agent cannot rewrite its own checkpoints, and its tree holds
no `.git` of ours to trip over. Blocking (GitPython runs git as a subprocess): async callers
run these in a thread. Git runs here as the worker's user; what it writes into the workspace
is handed back to the workspace's owner (the sandbox's user).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import shutil
import time
from pathlib import Path

import git

from contracts.errors import CheckpointError, MergeConflict
from settings import data_dir

log = logging.getLogger(__name__)

AUTHOR = ("agent-lab", "agent-lab@localhost")
# Git's lock files. A worker killed mid-commit leaves one behind ("cannot lock ref 'HEAD'"), and
# every retry of the step would then fail on it (the soak found a run failed that way).
_LOCKS = ("*.lock", "refs/heads/*.lock", "logs/*.lock", "logs/refs/heads/*.lock")
# Git holds its locks here for milliseconds; the only other process that could hold one on a
# run's repository is an earlier attempt of the same step, on a worker that died (a run's steps
# are one at a time, and a retry comes after the 2 s it takes to notice a dead worker). A lock
# this old is that attempt's.
STALE_LOCK_S = 2.0
STEP_TRAILER = "Lab-Step"
_IDENTITY = {
    "GIT_AUTHOR_NAME": AUTHOR[0],
    "GIT_AUTHOR_EMAIL": AUTHOR[1],
    "GIT_COMMITTER_NAME": AUTHOR[0],
    "GIT_COMMITTER_EMAIL": AUTHOR[1],
    "GIT_TERMINAL_PROMPT": "0",
    # No user or system configuration (hooks, templates, signing) leaks into checkpoints.
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def repository(workspace: Path) -> Path:
    """Where a workspace's checkpoints live: one repository per workspace path."""
    resolved = workspace.resolve()
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    return data_dir() / "checkpoints" / f"{resolved.name}-{digest}.git"


def init(workspace: Path) -> str:
    """A repository holding the workspace as its first commit; an existing one is kept."""
    if repository(workspace).exists() and not _recognised(workspace):
        # A worker killed inside `git init` left a directory git does not take for a repository,
        # and every retry failed on it ("not a git repository": the soak found it). It holds no
        # commit, so nothing is lost: it is made again.
        log.warning("removed %s, left by a `git init` that did not finish (a killed worker)", repository(workspace))
        shutil.rmtree(repository(workspace))
    if repository(workspace).exists():
        runner = _git(workspace)
        if _has_commits(runner):
            return _head(runner)
        # A worker killed between `git init` and the first commit: finish the job. Nothing has
        # run in the workspace yet (the run's steps start after this returns).
    else:
        repository(workspace).parent.mkdir(parents=True, exist_ok=True)
        runner = _git(workspace, must_exist=False)
        runner.init("-q", "-b", "main")
    runner.add("-A")
    runner.commit("--allow-empty", "-q", "-m", "fixture")
    return _head(runner)


def _recognised(workspace: Path) -> bool:
    try:
        _git(workspace).rev_parse("--git-dir")
    except git.GitCommandError:
        return False
    return True


def _has_commits(runner: git.Git) -> bool:
    try:
        runner.rev_parse("--verify", "-q", "HEAD")
    except git.GitCommandError:
        return False
    return True


def checkpoint(workspace: Path, step: int, message: str) -> str:
    """Commit everything as step `step`. Idempotent: if HEAD already is that step's commit
    (a retry after a crash between commit and record), it is returned as is."""
    runner = _git(workspace)
    if f"{STEP_TRAILER}: {step}" in runner.log("-1", "--format=%B").splitlines():
        return _head(runner)
    runner.add("-A")
    runner.commit("--allow-empty", "-q", "-m", f"step {step}: {message}\n\n{STEP_TRAILER}: {step}")
    return _head(runner)


def rollback(workspace: Path, checkpoint_id: str) -> None:
    """Back to exactly the checkpoint: tracked files reset, everything else removed."""
    runner = _git(workspace)
    try:
        runner.reset("--hard", "-q", checkpoint_id)
        runner.clean("-fdxq")
    except git.GitCommandError as error:
        raise CheckpointError(f"cannot roll back to {checkpoint_id[:12]}: {error.stderr.strip()}") from None
    _give_back(workspace)


def fork(source: Path, target: Path, checkpoint_id: str) -> None:
    """`target` as `source` was at its checkpoint: source's repository copied to be target's
    (every checkpoint of the parent stays reachable), the checkpoint checked out in target.
    Idempotent: a target that has its repository already is only rolled back again."""
    if not repository(source).is_dir():
        raise CheckpointError(f"{source} has no checkpoints left ({repository(source)} is gone)")
    if not repository(target).exists():
        scratch = repository(target).with_name(repository(target).name + ".partial")
        shutil.rmtree(scratch, ignore_errors=True)
        shutil.copytree(repository(source), scratch, symlinks=True)
        scratch.rename(repository(target))
    rollback(target, checkpoint_id)


# Caches a test run leaves behind. Two subtasks that both ran the tests would otherwise both
# commit them, and their merge conflict over files nobody wrote.
_NEVER_MERGED = ("__pycache__/", ".pytest_cache/", "*.pyc")
_WORKTREE_LOCK = "a subtask's workspace: its .git file lives outside it"


def add_worktree(workspace: Path, target: Path, branch: str, checkpoint_id: str) -> str:
    """`target` a git worktree of `workspace`'s repository, on a new branch `branch` at the
    checkpoint: a subtask's workspace. Its commits share the parent's object store, so its work
    merges back without a copy. As for any workspace, nothing of git's is inside it: the
    `.git` file git writes there moves to `repository(target)`, which git reads as GIT_DIR.
    Idempotent: a target that has its repository already is only rolled back to the checkpoint
    (a retry after a crash). Returns the checkpoint."""
    if repository(target).exists():
        rollback(target, checkpoint_id)
        return checkpoint_id
    runner = _git(workspace)
    exclude = repository(workspace) / "info" / "exclude"
    exclude.parent.mkdir(exist_ok=True)
    listed = exclude.read_text().splitlines() if exclude.exists() else []
    with exclude.open("a") as rules:
        rules.writelines(f"{rule}\n" for rule in _NEVER_MERGED if rule not in listed)
    scratch = target.with_name(f".{target.name}.partial")
    if scratch.exists():
        runner.worktree("prune")
        shutil.rmtree(scratch)
    # -B: a retry after a crash between `worktree add` and the rename starts the branch again.
    runner.worktree("add", "-q", "--lock", "--reason", _WORKTREE_LOCK, "-B", branch, str(scratch), checkpoint_id)
    # The admin directory git made for the worktree names where its .git file is: there.
    admin = Path((scratch / ".git").read_text().removeprefix("gitdir:").strip())
    (admin / "gitdir").write_text(str(repository(target)) + "\n")
    repository(target).write_text(f"gitdir: {admin}\n")
    (scratch / ".git").unlink()
    target.mkdir(parents=True, exist_ok=True)
    for entry in scratch.iterdir():
        entry.rename(target / entry.name)
    scratch.rmdir()
    _give_back(target)
    return checkpoint_id


def merge(workspace: Path, commit: str, message: str) -> str:
    """Merge `commit` (a subtask's last checkpoint) into the workspace, always as a merge commit
    (the history shows which subtask brought what). Raises MergeConflict naming the files, the
    workspace left as it was. Idempotent: a commit merged already is not merged again."""
    runner = _git(workspace)
    try:
        runner.merge_base("--is-ancestor", commit, "HEAD")
    except git.GitCommandError:
        pass
    else:
        return _head(runner)
    try:
        runner.merge("--no-ff", "-q", "-m", message, commit)
    except git.GitCommandError as error:
        conflicted = runner.diff("--name-only", "--diff-filter=U").split()
        with contextlib.suppress(git.GitCommandError):
            runner.merge("--abort")
        if not conflicted:
            raise CheckpointError(f"cannot merge {commit[:12]}: {' '.join(error.stderr.split())}") from None
        raise MergeConflict(f"{message}: conflicts in {', '.join(conflicted)}") from None
    _give_back(workspace)
    return _head(runner)


def history(workspace: Path) -> list[tuple[str, str]]:
    """The checkpoints, newest first: (commit id, subject)."""
    lines = _git(workspace).log("--format=%H %s").splitlines()
    return [(line[:40], line[41:]) for line in lines]


def _git(workspace: Path, must_exist: bool = True) -> git.Git:
    if must_exist and not repository(workspace).exists():
        raise CheckpointError(f"{workspace} has no checkpoint repository ({repository(workspace)})")
    _clear_stale_locks(repository(workspace))
    runner = git.Git(str(workspace))
    runner.update_environment(GIT_DIR=str(repository(workspace)), GIT_WORK_TREE=str(workspace.resolve()), **_IDENTITY)
    return runner


def _clear_stale_locks(repo: Path) -> None:
    """Remove the locks a killed attempt left; one younger than STALE_LOCK_S is given until then."""
    for lock in (found for pattern in _LOCKS for found in repo.glob(pattern)):
        try:
            age = time.time() - lock.stat().st_mtime
        except FileNotFoundError:
            continue  # released meanwhile
        if age < STALE_LOCK_S:
            time.sleep(STALE_LOCK_S - age)
        if lock.exists():
            lock.unlink(missing_ok=True)
            log.warning("removed %s, left by a git process that did not finish (a killed worker)", lock)


def _head(runner: git.Git) -> str:
    return runner.rev_parse("HEAD").strip()


def _give_back(workspace: Path) -> None:
    """What git wrote as root goes back to the workspace's owner, so sandboxed commands can
    still write there."""
    owner = workspace.stat()
    if os.geteuid() != 0 or (owner.st_uid, owner.st_gid) == (0, 0):
        return
    for directory, subdirs, files in os.walk(workspace):
        for name in (*subdirs, *files):
            path = os.path.join(directory, name)
            if os.lstat(path).st_uid != owner.st_uid:
                os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
