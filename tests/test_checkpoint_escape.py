"""The workspace cannot steer the checkpoints' git, nor hang, crash or fill the host through them.

The red team's escape, for real: a nested repository whose own config (`core.fsmonitor`, or a
clean filter named in its `info/attributes`) runs a script of the workspace; its `.git` moved
elsewhere in the workspace behind a `gitdir:` file, or left in place, or a `.git` file at the
workspace's root. With the checkpoints' git given the workspace as its work tree, the next
`git add -A` ran that script on the host, as the worker (root here): it wrote a canary outside
the workspace. Every checkpoint operation runs over each planting, as root and as a non-root
worker, and the canary must stay as it was. Then the tree's other weapons: a FIFO, a symlink
out of the workspace, a directory swapped for a symlink, a tree 1,100 levels deep, a
repository with no commit, files too large to keep.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent import checkpoints
from agent.checkpoint_snapshot import MAX_FILE_BYTES
from agent.sandbox.identity import workspace_owner
from settings import PROJECT_ROOT
from tests.lab_dependencies import lab_deps

UNTOUCHED = "untouched\n"
PLANTINGS = ["gitdir-fsmonitor", "gitdir-filter", "nested-fsmonitor", "nested-filter", "root-gitfile"]


def _git(cwd: Path, *args: str) -> None:
    """Git as the agent would run it inside its sandbox (identity given, nothing of the host's)."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(cwd),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    command = ["git", "-c", "user.name=agent", "-c", "user.email=agent@example.com", *args]
    subprocess.run(command, cwd=cwd, env=env, check=True, capture_output=True, timeout=30)


def plant(workspace: Path, planting: str, canary: Path) -> None:
    """A script that appends to `canary`, and a git configuration in the workspace that names
    it, the way `planting` hides it (the agent's proposals, each a file write or a command)."""
    script = workspace / "evil.sh"
    script.write_text(f"echo escaped-as-$(id -u) >> {canary}\n")
    where, kind = planting.rsplit("-", 1) if planting != "root-gitfile" else ("root", "both")
    if where == "root":
        git_dir = workspace / "planted"
        _git(workspace, "init", "-q", "--bare", str(git_dir))
        (workspace / ".git").write_text("gitdir: planted\n")
    else:
        git_dir = workspace / "sub" / ".git"
        if where == "gitdir":
            shutil.move(git_dir, workspace / "hidden")
            git_dir = workspace / "hidden"
            (workspace / "sub" / ".git").write_text("gitdir: ../hidden\n")
    if kind in ("fsmonitor", "both"):
        _git(workspace, "--git-dir", str(git_dir), "config", "core.fsmonitor", f"sh {script}")
    if kind in ("filter", "both"):
        (git_dir / "info").mkdir(exist_ok=True)
        (git_dir / "info" / "attributes").write_text("* filter=x\n")
        _git(workspace, "--git-dir", str(git_dir), "config", "filter.x.clean", f"sh {script}")
        if (workspace / "sub" / "f").exists():
            # Same size, another time: git must read the file again, through the filter.
            _touch(workspace / "sub" / "f", 978307200)


def _touch(path: Path, when: int) -> None:
    """Another modification time, the same size: git reads the file again (a git that checked
    out no nested repository has no such file)."""
    with contextlib.suppress(FileNotFoundError):
        os.utime(path, (when, when))


def nested_repository(workspace: Path) -> None:
    """`git init sub`, one commit: what makes a gitlink of `sub` for a `git add -A` above it."""
    (workspace / "sub").mkdir()
    _git(workspace / "sub", "init", "-q")
    (workspace / "sub" / "f").write_text("nested\n")
    _git(workspace / "sub", "add", "f")
    _git(workspace / "sub", "commit", "-q", "-m", "nested")


class _SessionCheckpoints:
    """agent.checkpoints with this process's checkpoint directory handed to every call."""

    def __getattr__(self, name: str) -> Any:
        return functools.partial(getattr(checkpoints, name), lab_deps().checkpoints)


def scenario(workspace: Path, subtask: Path, canary: Path, planting: str, module: Any = None) -> list[str]:
    """Every checkpoint operation over a workspace with `planting` in it; the canary's content
    after each. `module`: the checkpoints implementation under test (the old one, by hand;
    by default agent.checkpoints over this process's checkpoint directory)."""
    module = module if module is not None else _SessionCheckpoints()
    seen: list[str] = []

    def after(label: str) -> None:
        seen.append(f"{label}: {canary.read_text()!r}")

    module.init(workspace)
    nested_repository(workspace)
    first = module.checkpoint(workspace, 1, "a nested repository")
    after("checkpoint with a nested repository")
    plant(workspace, planting, canary)
    planted = getattr(module.checkpoint(workspace, 2, "the planting"), "commit", None)
    planted = planted or module.history(workspace)[0][0]
    after("checkpoint of the planting")
    (workspace / "a.txt").write_text("rejected\n")
    _touch(workspace / "sub" / "f", 978307300)
    module.rollback(workspace, planted)
    after("rollback")
    module.add_worktree(workspace, subtask, "subtask/escape", planted)
    after("add_worktree")
    (subtask / "b.txt").write_text("subtask\n")
    _touch(subtask / "sub" / "f", 978307400)
    done = module.checkpoint(subtask, 1, "subtask work")
    after("checkpoint of the subtask")
    module.merge(workspace, getattr(done, "commit", done), "merge the subtask")
    after("merge")
    module.rollback(workspace, getattr(first, "commit", first))
    after("rollback past the planting")
    return seen


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    path = tmp_path / "canary"
    path.write_text(UNTOUCHED)
    return path


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    path.mkdir()
    (path / "a.txt").write_text("one\n")
    return path


@pytest.mark.parametrize("planting", PLANTINGS)
def test_no_planting_runs_anything_through_a_checkpoint_operation(
    workspace: Path, tmp_path: Path, canary: Path, planting: str
) -> None:
    seen = scenario(workspace, tmp_path / "subtask", canary, planting)
    assert canary.read_text() == UNTOUCHED, seen
    # The merge brought the subtask's work, and the nested repository is content like any other.
    assert (workspace / "a.txt").read_text() == "one\n"
    assert not (workspace / "b.txt").exists()  # rolled back past the merge, as asked


AS_WORKER = """
import json, os, sys
from pathlib import Path
# Loaded before the user changes: what the scenario needs of the standard library and the lab.
import hashlib, shutil, signal, subprocess, tempfile, threading, time
import tests.test_checkpoint_escape as escape
from agent import checkpoints
uid, home = int(sys.argv[1]), Path(sys.argv[2])
os.setgroups([])
os.setresgid(uid, uid, uid)
os.setresuid(uid, uid, uid)
seen = {
    planting: escape.scenario(home / planting / "ws", home / planting / "subtask", home / planting / "canary", planting)
    for planting in escape.PLANTINGS
}
print(json.dumps({"uid": os.geteuid(), "seen": seen}))
"""


@pytest.fixture
def worker_home() -> Iterator[tuple[Path, int]]:
    """For each planting a workspace, a subtask's directory and a canary, and a data directory,
    all of a user of their own, where that user can reach them (pytest's temporary directory
    is root's, 0700)."""
    home = Path(tempfile.mkdtemp(prefix="checkpoint-escape-"))
    uid, _gid = workspace_owner(home.name)
    try:
        home.chmod(0o755)
        (home / "data").mkdir()
        owned = [home / "data"]
        for planting in PLANTINGS:
            (home / planting).mkdir()
            for path in (home / planting / "ws", home / planting / "subtask"):
                path.mkdir()
            (home / planting / "ws" / "a.txt").write_text("one\n")
            (home / planting / "canary").write_text(UNTOUCHED)
            owned += [home / planting / name for name in ("ws", "ws/a.txt", "subtask", "canary")]
        for path in owned:
            os.chown(path, uid, uid)
        yield home, uid
    finally:
        shutil.rmtree(home)


@pytest.mark.skipif(os.geteuid() != 0, reason="not root: the tests above already ran as a non-root worker")
def test_no_planting_runs_anything_under_a_non_root_worker(worker_home: tuple[Path, int]) -> None:
    """The worker process itself unprivileged (its user changed after the interpreter loaded,
    since the lab's interpreter may live where that user cannot read)."""
    home, uid = worker_home
    env = {**os.environ, "AGENT_LAB_DATA": str(home / "data"), "PYTHONPATH": str(PROJECT_ROOT)}
    done = subprocess.run(
        [sys.executable, "-c", AS_WORKER, str(uid), str(home)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.splitlines()[-1])
    assert report["uid"] == uid
    canaries = {planting: (home / planting / "canary").read_text() for planting in PLANTINGS}
    assert canaries == dict.fromkeys(PLANTINGS, UNTOUCHED), report["seen"]


# --- the tree's other weapons ------------------------------------------------------------------


def within(seconds: float, work: Callable[[], Any]) -> Any:
    """`work()`'s result, failing the test if it has not returned in `seconds` (a hang)."""
    result: list[Any] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as error:  # handed to the test's thread
            failure.append(error)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s"
    if failure:
        raise failure[0]
    return result[0]


def stored(workspace: Path, commit: str) -> dict[str, tuple[str, bytes]]:
    """What the commit holds: path -> (mode, content)."""
    env = {"GIT_DIR": str(checkpoints.repository(lab_deps().checkpoints, workspace)), "PATH": os.environ["PATH"]}
    listing = subprocess.run(["git", "ls-tree", "-r", "-z", commit], env=env, capture_output=True, check=True).stdout
    held = {}
    for record in filter(None, listing.split(b"\0")):
        meta, _, path = record.partition(b"\t")
        mode, _, oid = meta.decode().split(" ")
        content = subprocess.run(["git", "cat-file", "blob", oid], env=env, capture_output=True, check=True).stdout
        held[os.fsdecode(path)] = (mode, content)
    return held


def test_a_fifo_is_left_out_and_neither_checkpoint_nor_rollback_waits_on_it(workspace: Path) -> None:
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    os.mkfifo(workspace / "pipe")
    made = within(20, lambda: checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "a fifo"))
    assert [(entry.path, entry.reason) for entry in made.left_out] == [("pipe", "special")]
    assert "pipe (a FIFO, socket or device)" in (made.note() or "")
    within(20, lambda: checkpoints.rollback(lab_deps().checkpoints, workspace, start))
    assert sorted(path.name for path in workspace.iterdir()) == ["a.txt"]


def test_a_symlink_out_of_the_workspace_is_kept_as_a_link_never_read(workspace: Path) -> None:
    checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "passwd").symlink_to("/etc/passwd")
    made = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "a link")
    assert stored(workspace, made.commit)["passwd"] == ("120000", b"/etc/passwd")
    (workspace / "passwd").unlink()
    (workspace / "passwd").write_text("a file now\n")
    checkpoints.rollback(lab_deps().checkpoints, workspace, made.commit)
    assert os.readlink(workspace / "passwd") == "/etc/passwd"


def test_a_rollback_never_writes_through_a_directory_swapped_for_a_symlink(workspace: Path, tmp_path: Path) -> None:
    (workspace / "d").mkdir()
    (workspace / "d" / "file.txt").write_text("inside\n")
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    outside = tmp_path / "outside"
    outside.mkdir()
    shutil.rmtree(workspace / "d")
    (workspace / "d").symlink_to(outside)
    checkpoints.rollback(lab_deps().checkpoints, workspace, start)
    assert list(outside.iterdir()) == []
    assert not (workspace / "d").is_symlink()
    assert (workspace / "d" / "file.txt").read_text() == "inside\n"


@pytest.fixture
def deep_tree(workspace: Path) -> Iterator[Path]:
    """`deep/d/d/...`, 1,100 levels, made one level at a time (a path string that long is past
    what a recursive walk survives); removed with `rm -rf` (iterative) whatever the test does."""
    top = workspace / "deep"
    top.mkdir()
    descriptor = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(1100):
            os.mkdir("d", dir_fd=descriptor)
            below = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=descriptor)
            os.close(descriptor)
            descriptor = below
        with open(os.open("bottom.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=descriptor), "w") as bottom:
            bottom.write("the bottom\n")
    finally:
        os.close(descriptor)
    yield top
    subprocess.run(["rm", "-rf", str(top)], check=False, timeout=60)


def test_a_tree_1100_levels_deep_is_cut_noted_and_removed_by_a_rollback(workspace: Path, deep_tree: Path) -> None:
    (workspace / "deep" / "shallow.txt").write_text("kept\n")
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    made = within(30, lambda: checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "deep"))
    assert [entry.reason for entry in made.left_out] == ["too_deep"]
    assert "deep/shallow.txt" in stored(workspace, made.commit)
    within(30, lambda: checkpoints.rollback(lab_deps().checkpoints, workspace, start))
    assert sorted(path.name for path in deep_tree.iterdir()) == ["shallow.txt"]


def test_a_repository_with_no_commit_breaks_nothing(workspace: Path) -> None:
    """`git init sub` with no commit made every later `git add -A` fail, and the run died."""
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    _git(workspace, "init", "-q", "sub")
    made = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "an empty repository")
    assert "sub/.git/HEAD" in stored(workspace, made.commit)
    shutil.rmtree(workspace / "sub")
    checkpoints.rollback(lab_deps().checkpoints, workspace, made.commit)
    assert (workspace / "sub" / ".git" / "HEAD").read_text().startswith("ref: refs/heads/")
    checkpoints.rollback(lab_deps().checkpoints, workspace, start)
    assert not (workspace / "sub").exists()


def test_files_over_the_cap_are_left_out_with_a_note_and_do_not_grow_the_repository(workspace: Path) -> None:
    checkpoints.init(lab_deps().checkpoints, workspace)
    repository = checkpoints.repository(lab_deps().checkpoints, workspace)
    (workspace / "data").mkdir()
    sizes = [_size(repository)]
    for step in (1, 2, 3):
        (workspace / "data" / "small.bin").write_bytes(os.urandom(1 << 20))
        (workspace / "data" / "big.bin").write_bytes(os.urandom(MAX_FILE_BYTES + 1))
        made = checkpoints.checkpoint(lab_deps().checkpoints, workspace, step, "rewrite both")
        sizes.append(_size(repository))
        assert [entry.path for entry in made.left_out] == ["data/big.bin"]
        assert "data/big.bin (8.0 MiB, over 8 MiB)" in (made.note() or "")
        assert "data/small.bin" in stored(workspace, made.commit)
    # Each step adds the 1 MiB file (random: it does not compress), never the large one.
    growth = [after - before for before, after in itertools.pairwise(sizes)]
    assert all(grown < 2 << 20 for grown in growth), growth
    # The retry of a step finds its commit, and the same note.
    assert checkpoints.checkpoint(lab_deps().checkpoints, workspace, 3, "rewrite both") == made
    checkpoints.rollback(lab_deps().checkpoints, workspace, made.commit)
    assert not (workspace / "data" / "big.bin").exists()


def _size(path: Path) -> int:
    return sum(found.stat().st_size for found in path.rglob("*") if found.is_file())


def test_checkpoints_never_give_git_the_workspace(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every git the checkpoints run gets GIT_DIR only, and runs outside the workspace."""
    calls: list[tuple[list[str], dict[str, str], str]] = []
    original = subprocess.Popen.__init__

    def spy(self: subprocess.Popen[bytes], args: Any, *rest: Any, **options: Any) -> None:
        if isinstance(args, list) and args and args[0] == "git":
            calls.append((list(args), dict(options.get("env") or {}), str(options.get("cwd"))))
        original(self, args, *rest, **options)

    monkeypatch.setattr(subprocess.Popen, "__init__", spy)
    start = checkpoints.init(lab_deps().checkpoints, workspace)
    (workspace / "b.txt").write_text("b\n")
    made = checkpoints.checkpoint(lab_deps().checkpoints, workspace, 1, "b")
    checkpoints.rollback(lab_deps().checkpoints, workspace, start)
    checkpoints.add_worktree(
        lab_deps().checkpoints, workspace, workspace.parent / "subtask", "subtask/spy", made.commit
    )
    checkpoints.merge(lab_deps().checkpoints, workspace, made.commit, "merge")
    monkeypatch.undo()
    assert calls
    for args, env, cwd in calls:
        assert "GIT_WORK_TREE" not in env and "GIT_DIR" in env, args
        assert not Path(cwd).resolve().is_relative_to(workspace.resolve()), args
        assert "core.fsmonitor=false" in args and "core.bare=true" in args, args
