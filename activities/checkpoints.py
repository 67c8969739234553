"""Git checkpoints of a workspace: a commit after every committed step, a hard reset back to
the last one after a rejected step, so the workspace only ever holds committed work.

Blocking (GitPython runs git as a subprocess): async callers run these in a thread. The
workspace belongs to the sandbox user; git runs here as the worker's user, so the repository
is marked safe for it, and what git writes is handed back to the workspace's owner.
"""

from __future__ import annotations

import os
from pathlib import Path

import git

from activities.errors import LabError

AUTHOR = ("agent-lab", "agent-lab@localhost")
STEP_TRAILER = "Lab-Step"
# Config for every git call: the repository may belong to another user (the sandbox's).
_ENV = {
    "GIT_CONFIG_COUNT": "1",
    "GIT_CONFIG_KEY_0": "safe.directory",
    "GIT_CONFIG_VALUE_0": "*",
    "GIT_AUTHOR_NAME": AUTHOR[0],
    "GIT_AUTHOR_EMAIL": AUTHOR[1],
    "GIT_COMMITTER_NAME": AUTHOR[0],
    "GIT_COMMITTER_EMAIL": AUTHOR[1],
    "GIT_TERMINAL_PROMPT": "0",
}


class CheckpointError(LabError):
    """The workspace's repository is missing or broken (the agent may have removed .git)."""


def init(workspace: Path) -> str:
    """A repository holding the fixture as its first commit; an existing one is kept."""
    if (workspace / ".git").exists():
        return _head(_repo(workspace))
    repo = git.Repo.init(workspace, initial_branch="main")
    repo.git.update_environment(**_ENV)
    repo.git.add("-A")
    repo.git.commit("--allow-empty", "-q", "-m", "fixture")
    _give_back(workspace)
    return _head(repo)


def checkpoint(workspace: Path, step: int, message: str) -> str:
    """Commit everything as step `step`. Idempotent: if HEAD already is that step's commit
    (a retry after a crash between commit and record), it is returned as is."""
    repo = _repo(workspace)
    head = repo.head.commit
    if f"{STEP_TRAILER}: {step}" in head.message.splitlines():
        return head.hexsha
    repo.git.add("-A")
    repo.git.commit("--allow-empty", "-q", "-m", f"step {step}: {message}\n\n{STEP_TRAILER}: {step}")
    _give_back(workspace)
    return _head(repo)


def rollback(workspace: Path, checkpoint_id: str) -> None:
    """Back to exactly the checkpoint: tracked files reset, everything else removed."""
    repo = _repo(workspace)
    try:
        repo.git.reset("--hard", "-q", checkpoint_id)
        repo.git.clean("-fdxq")
    except git.GitCommandError as error:
        raise CheckpointError(f"cannot roll back to {checkpoint_id[:12]}: {error.stderr.strip()}") from None
    _give_back(workspace)


def history(workspace: Path) -> list[tuple[str, str]]:
    """The checkpoints, newest first: (commit id, subject)."""
    return [(commit.hexsha, commit.summary) for commit in _repo(workspace).iter_commits()]  # type: ignore[misc]


def _repo(workspace: Path) -> git.Repo:
    try:
        repo = git.Repo(workspace)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise CheckpointError(f"{workspace} has no checkpoint repository (was .git removed?)") from None
    repo.git.update_environment(**_ENV)
    return repo


def _head(repo: git.Repo) -> str:
    return repo.head.commit.hexsha


def _give_back(workspace: Path) -> None:
    """What git wrote as root goes back to the workspace's owner, so sandboxed commands (and
    the agent's own git) can still write there."""
    owner = workspace.stat()
    if os.geteuid() != 0 or (owner.st_uid, owner.st_gid) == (0, 0):
        return
    for directory, subdirs, files in os.walk(workspace):
        for name in (*subdirs, *files):
            path = os.path.join(directory, name)
            if os.lstat(path).st_uid != owner.st_uid:
                os.chown(path, owner.st_uid, owner.st_gid, follow_symlinks=False)
