"""Git for checkpoints, as an object store and nothing else.

Git reads and runs what a work tree holds: a nested repository's `core.fsmonitor` and clean
filters run when git looks at a gitlink, whatever the top-level repository's settings (an
agent made the worker run a script that way). So git is never given a workspace: no
GIT_WORK_TREE, no working directory inside one, only commands that read and write objects and
refs (`fast-import`, `cat-file`, `ls-tree`, `merge-tree`, `commit-tree`, `update-ref`, `log`).
The workspace is read and written from Python (agent/checkpoint_snapshot.py,
agent/checkpoint_restore.py); git only ever sees bytes we hand it.

Belt and braces: `core.bare=true` (a repository made by an older version names the workspace
as its `core.worktree`), no system, global or XDG configuration or attributes, no hooks, no
fsmonitor, no automatic gc, and an environment built from scratch rather than inherited.
Every call has a deadline and a process past it is killed: a step's thread is freed.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from contracts.errors import CheckpointError

log = logging.getLogger(__name__)

AUTHOR = ("agent-lab", "agent-lab@localhost")
_IDENTITY = {
    "GIT_AUTHOR_NAME": AUTHOR[0],
    "GIT_AUTHOR_EMAIL": AUTHOR[1],
    "GIT_COMMITTER_NAME": AUTHOR[0],
    "GIT_COMMITTER_EMAIL": AUTHOR[1],
    "GIT_TERMINAL_PROMPT": "0",
    # No user or system configuration (hooks, templates, signing) leaks into checkpoints.
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_ATTR_NOSYSTEM": "1",
}
_SAFE = (
    "core.bare=true",
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "gc.auto=0",
    "maintenance.auto=false",
    # Not for safety, for time: fast-import keeps what it wrote as a pack, where it would run
    # `unpack-objects` (one more process, ~10 ms) to make a small import loose objects.
    # keep_packs_few() bounds how many packs that leaves.
    "fastimport.unpackLimit=0",
)
SAFE_CONFIG = tuple(arg for setting in _SAFE for arg in ("-c", setting))
# More packs than this and every object lookup searches them all: they are made one.
MAX_PACKS = 32
# Git's lock files. A worker killed mid-commit leaves one behind ("cannot lock ref 'HEAD'"), and
# every retry of the step would then fail on it (the soak found a run failed that way).
_LOCKS = ("*.lock", "refs/heads/**/*.lock", "logs/*.lock", "logs/refs/heads/**/*.lock")
# Git holds its locks here for milliseconds; the only other process that could hold one on a
# run's repository is an earlier attempt of the same step, on a worker that died (a run's steps
# are one at a time, and a retry comes after the 2 s it takes to notice a dead worker). A lock
# this old is that attempt's.
STALE_LOCK_S = 2.0


class Git:
    """Git on one repository (`git_dir`), every call done by `deadline` (time.monotonic())."""

    def __init__(self, git_dir: Path, deadline: float) -> None:
        self.git_dir = git_dir
        self.deadline = deadline
        self.env = {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": os.devnull,
            "LC_ALL": "C",
            "GIT_DIR": str(git_dir),
            **_IDENTITY,
        }
        # Never a workspace: the repository's parent (ours, and it exists before `git init`).
        self.cwd = git_dir.parent

    def run(
        self, *args: str, stdin: bytes | None = None, codes: tuple[int, ...] = (0,)
    ) -> subprocess.CompletedProcess[bytes]:
        """`git ARGS`; CheckpointError if it fails (an exit code not in `codes`) or overruns."""
        try:
            done = subprocess.run(
                ["git", *SAFE_CONFIG, *args],
                input=stdin,
                capture_output=True,
                env=self.env,
                cwd=self.cwd,
                timeout=self.left(),
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise CheckpointError(f"git {args[0]} on {self.git_dir} did not finish in time") from None
        except OSError as error:
            raise CheckpointError(f"cannot run git {args[0]}: {error}") from None
        if done.returncode not in codes:
            raise CheckpointError(f"git {args[0]} failed on {self.git_dir}: {said(done.stderr)}")
        return done

    def out(self, *args: str) -> str:
        return self.run(*args).stdout.decode("utf-8", "replace").strip()

    def left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise CheckpointError(f"the checkpoint of {self.git_dir.name} took longer than allowed")
        return left

    @contextlib.contextmanager
    def process(self, *args: str) -> Iterator[subprocess.Popen[bytes]]:
        """A streaming `git ARGS` (stdin and stdout pipes), killed if it outlives the deadline
        or the block; stderr kept in a file (a pipe nobody reads could fill and stall git)."""
        timeout = self.left()
        with tempfile.TemporaryFile() as errors:
            try:
                running = subprocess.Popen(
                    ["git", *SAFE_CONFIG, *args],
                    stdin=subprocess.PIPE,
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    env=self.env,
                    cwd=self.cwd,
                )
            except OSError as error:
                raise CheckpointError(f"cannot run git {args[0]}: {error}") from None
            watchdog = threading.Timer(timeout, running.kill)
            watchdog.start()
            failure: BaseException | None = None
            try:
                try:
                    yield running
                    assert running.stdin is not None
                    running.stdin.close()
                    # No timeout here: the watchdog kills git at the deadline, and Popen.wait's
                    # timeout polls in growing sleeps that cost a fast call milliseconds.
                    running.wait()
                except (BrokenPipeError, ValueError) as error:
                    # A broken pipe or a closed file: git died, or the watchdog killed it.
                    failure = error
            finally:
                watchdog.cancel()
                if running.poll() is None:
                    running.kill()
                running.wait()
                for pipe in (running.stdin, running.stdout):
                    if pipe is not None:
                        pipe.close()
            if failure is not None or running.returncode != 0:
                errors.seek(0)
                why = "did not finish in time" if running.returncode == -signal.SIGKILL else said(errors.read())
                raise CheckpointError(f"git {args[0]} failed on {self.git_dir}: {why}")


def said(stderr: bytes) -> str:
    """Git's last few lines of complaint, on one line (warnings of an older repository's
    settings left aside)."""
    lines = [line for line in stderr.decode("utf-8", "replace").splitlines() if "do not make sense" not in line]
    return " ".join(" ".join(lines[-3:]).split())[:500] or "no message"


def clear_stale_locks(repo: Path) -> None:
    """Remove the locks a killed attempt left; one younger than STALE_LOCK_S is given until then."""
    if not repo.is_dir():
        return
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


def keep_packs_few(git: Git) -> None:
    """Repack the objects into one pack when a checkpoint a step has left too many. `-A`, not
    `-a`: an object no branch reaches (a checkpoint a rollback went back past) is kept, loose,
    since a run's ledger may still name it; nothing here ever prunes."""
    common = git.git_dir / "commondir"
    store = Path(common.read_text().strip()) if common.is_file() else git.git_dir
    packs = store / "objects" / "pack"
    if packs.is_dir() and sum(1 for name in os.listdir(packs) if name.endswith(".pack")) > MAX_PACKS:
        git.run("repack", "-A", "-d", "-q")
