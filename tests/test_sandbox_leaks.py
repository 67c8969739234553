"""The sandbox's last leaks, each an attack run for real in bubblewrap: the worker's session
keyring, new user namespaces, and an /etc that broke benign tools. And the seccomp filter's
generator, run instruction by instruction against the calls it must deny and allow.
"""

from __future__ import annotations

import ctypes
import errno
import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from agent.sandbox import SandboxUnavailable, syscalls
from agent.sandbox.bubblewrap import BubblewrapSandbox, available, unavailable_reason
from agent.sandbox.identity import workspace_owner
from agent.sandbox.keyring import fresh_session_keyring
from agent.sandbox.process import ProcessSandbox
from agent.sandbox.seccomp import DENIALS, RET_ALLOW, RET_ERRNO, RET_KILL_PROCESS, X86_ONLY, program
from agent.sandbox.syscalls import AARCH64, X86_64, Architecture
from settings import PROJECT_ROOT
from tests.conftest import sandbox_workspace
from tests.lab_dependencies import lab_deps

BWRAP = pytest.mark.skipif(not available(), reason=f"bubblewrap cannot create a sandbox here: {unavailable_reason()}")
KEY_SPEC_SESSION_KEYRING = -3
KEYCTL_DESCRIBE, KEYCTL_SEARCH, KEYCTL_READ, KEYCTL_INVALIDATE = 6, 10, 11, 21
CLONE_NEWUSER = 0x10000000

# A workspace script that tries every way to the planted key; one JSON line per call.
KEYRING_ATTACK = """
import ctypes, json, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
keyctl, key, description = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].encode()
buffer = ctypes.create_string_buffer(4096)
def call(name, *args):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(keyctl), *args)
    print(json.dumps({"call": name, "result": result, "errno": ctypes.get_errno(),
                      "data": buffer.raw[:max(result, 0)].decode("latin-1")}))
    return result
call("read-session", ctypes.c_long(11), ctypes.c_long(-3), buffer, ctypes.c_long(4096))
call("read-key", ctypes.c_long(11), ctypes.c_long(key), buffer, ctypes.c_long(4096))
call("describe-key", ctypes.c_long(6), ctypes.c_long(key), buffer, ctypes.c_long(4096))
found = call("search-session", ctypes.c_long(10), ctypes.c_long(-3), b"user", description, ctypes.c_long(0))
if found > 0:
    call("read-found", ctypes.c_long(11), ctypes.c_long(found), buffer, ctypes.c_long(4096))
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return sandbox_workspace(tmp_path)


def _libc_syscall() -> Callable[..., int]:
    syscall = ctypes.CDLL(None, use_errno=True).syscall
    syscall.restype = ctypes.c_long
    return syscall


def plant_key() -> tuple[int, str, str]:
    """A key in this process's session keyring, as a secret of the worker would be: its id,
    its secret payload and its description. Skips where the host gives no keyring."""
    canary, description = f"canary-{uuid.uuid4().hex}", f"sandbox-leak-{uuid.uuid4().hex[:8]}"
    key = _libc_syscall()(
        ctypes.c_long(syscalls.native().number("add_key")), b"user", description.encode(), canary.encode(),
        ctypes.c_size_t(len(canary)), ctypes.c_long(KEY_SPEC_SESSION_KEYRING),
    )  # fmt: skip
    if key < 0:
        pytest.skip(f"this host gives no keyring to plant a key in: {os.strerror(ctypes.get_errno())}")
    return key, canary, description


@pytest.fixture
def planted_key() -> Iterator[tuple[int, str, str]]:
    key, canary, description = plant_key()
    yield key, canary, description
    _libc_syscall()(
        ctypes.c_long(syscalls.native().number("keyctl")), ctypes.c_long(KEYCTL_INVALIDATE), ctypes.c_long(key)
    )


def keyring_attack(workspace: Path, key: int, description: str) -> str:
    (workspace / "attack.py").write_text(KEYRING_ATTACK)
    return f"python attack.py {syscalls.native().number('keyctl')} {key} {description}"


def calls(output: str) -> dict[str, dict[str, int | str]]:
    return {entry["call"]: entry for entry in map(json.loads, re.findall(r"^\{.*\}$", output, re.MULTILINE))}


# --- the keyring ------------------------------------------------------------------------------


async def test_the_attack_reads_the_planted_key_where_nothing_stops_it(
    workspace: Path, planted_key: tuple[int, str, str]
) -> None:
    """The control: unsandboxed, the same script prints the worker's key."""
    key, canary, description = planted_key
    outcome = await ProcessSandbox(lab_deps().artifacts).run(keyring_attack(workspace, key, description), workspace, 30)
    assert canary in outcome.output, outcome.output


@BWRAP
async def test_the_workers_session_keyring_is_out_of_reach(workspace: Path, planted_key: tuple[int, str, str]) -> None:
    key, canary, description = planted_key
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(
        keyring_attack(workspace, key, description), workspace, 30
    )
    assert canary not in outcome.output
    tried = calls(outcome.output)
    assert set(tried) == {"read-session", "read-key", "describe-key", "search-session"}, outcome.output
    assert all((call["result"], call["errno"]) == (-1, errno.EPERM) for call in tried.values()), tried


@BWRAP
async def test_the_fresh_session_keyring_alone_holds_nothing(
    workspace: Path, planted_key: tuple[int, str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second wall on its own: with a filter that allows every call, the command's
    session keyring is an empty one, and the worker's key is not the command's to read."""
    key, canary, description = planted_key
    sandbox = BubblewrapSandbox(lab_deps().artifacts)
    monkeypatch.setattr(sandbox, "_filter", struct.pack("=HBBI", 0x06, 0, 0, RET_ALLOW))
    outcome = await sandbox.run(keyring_attack(workspace, key, description), workspace, 30)
    assert canary not in outcome.output
    tried = calls(outcome.output)
    assert (tried["read-session"]["result"], tried["read-session"]["data"]) == (0, ""), tried
    assert tried["read-key"]["result"] == -1 and tried["search-session"]["result"] == -1, tried


# --- namespaces -------------------------------------------------------------------------------


@BWRAP
@pytest.mark.skipif(shutil.which("unshare") is None, reason="the host has no unshare (util-linux)")
async def test_unshare_cannot_make_a_user_namespace(workspace: Path) -> None:
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run("unshare -Ur id", workspace, 30)
    assert outcome.exit_code != 0 and "Operation not permitted" in outcome.output, outcome.output


@BWRAP
async def test_no_system_call_makes_a_user_namespace(workspace: Path) -> None:
    arch = syscalls.native()
    script = f"""
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def report(name, result):
    print(name, result, ctypes.get_errno(), flush=True)
# clone first: a process that unshare had put in a namespace of its own could clone no other.
pid = libc.syscall(ctypes.c_long({arch.number("clone")}), ctypes.c_long({CLONE_NEWUSER} | 17), *[ctypes.c_long(0)] * 4)
if pid == 0:
    os._exit(0)
report("clone", pid)
report("clone3", libc.syscall(ctypes.c_long({arch.number("clone3")}), None, ctypes.c_long(0)))
report("unshare", libc.unshare({CLONE_NEWUSER}))
child = os.fork()
if child == 0:
    os._exit(7)
print("fork", os.waitpid(child, 0)[1] >> 8)
"""
    (workspace / "userns.py").write_text(script)
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run("python userns.py", workspace, 30)
    lines = outcome.output.splitlines()
    assert lines == ["clone -1 1", "clone3 -1 38", "unshare -1 1", "fork 7"], outcome.output


# --- /etc and benign tools ----------------------------------------------------------------------

BENIGN = {
    "git": ("git --version && git init -q repo && git -C repo status --short && echo done", "done"),
    "awk": ("echo 'a b' | awk '{print $2}'", "b"),
    "which": ("which python3", "/python3"),
    "cc": ("printf 'int main(void){return 0;}' > t.c && cc t.c -o t && ./t && echo built", "built"),
    "java": ("java -version", "version"),
    "vi": ("vi -es -c q && echo edited", "edited"),
    "whoami": ("whoami", "workspace"),
    "python": ("python -c 'import multiprocessing as m; print(m.Pool(2).map(abs, [-3]))'", "[3]"),
}


@BWRAP
@pytest.mark.parametrize("tool", BENIGN)
async def test_a_benign_tool_runs(tool: str, workspace: Path) -> None:
    if shutil.which(tool) is None:
        pytest.skip(f"the host has no {tool}")
    command, expected = BENIGN[tool]
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(command, workspace, 60)
    assert outcome.exit_code == 0 and expected in outcome.output, outcome.output
    assert "Permission denied" not in outcome.output


@BWRAP
async def test_etc_is_readable_and_holds_nothing_of_the_hosts_accounts(workspace: Path) -> None:
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(
        "stat -c %a /etc; ls /etc; echo ---; cat /etc/passwd", workspace, 30
    )
    mode, rest = outcome.output.split("\n", 1)
    listing, passwd = rest.split("---\n")
    assert mode == "755"
    assert {"shadow", "gshadow", "gitconfig", "sudoers", "ssh", "ssl"}.isdisjoint(listing.split())
    host_users = {line.split(":")[0] for line in Path("/etc/passwd").read_text().splitlines() if ":" in line}
    inside = {line.split(":")[0] for line in passwd.splitlines()}
    assert inside & host_users <= {"root", "nobody"}, inside
    assert "workspace" in inside


# --- a non-root worker ------------------------------------------------------------------------

AS_NON_ROOT = """
import asyncio, json, os, sys
# Loaded now: once the user changes, the interpreter's own library under /root is out of reach.
import asyncio.subprocess, concurrent.futures.thread
from pathlib import Path
from agent.sandbox import bubblewrap
import tests.test_sandbox_leaks as leaks
from tests.lab_dependencies import lab_deps
uid, workspace = int(sys.argv[1]), Path(sys.argv[2])
os.setgroups([])
os.setresgid(uid, uid, uid)
os.setresuid(uid, uid, uid)
# The lab's interpreter lives under /root (0700 here), out of an unprivileged bwrap's reach:
# the commands use the system's python3 instead.
bubblewrap.python_runtime_dirs = lambda: ()
key, canary, description = leaks.plant_key()
async def main():
    sandbox = bubblewrap.BubblewrapSandbox(lab_deps().artifacts)
    attack = leaks.keyring_attack(workspace, key, description).replace("python ", "python3 ", 1)
    outputs = [(await sandbox.run(command, workspace, 30)).output
               for command in (attack, "unshare -Ur id", "stat -c %a /etc && git --version")]
    print(json.dumps({"canary": canary, "outputs": outputs}))
asyncio.run(main())
"""


@pytest.fixture
def unprivileged_home() -> Iterator[tuple[Path, int]]:
    """A workspace and a data directory of a user of its own, where that user can reach them
    (pytest's own temporary directory is root's, 0700)."""
    home = Path(tempfile.mkdtemp(prefix="sandbox-leaks-"))
    uid, _gid = workspace_owner(home.name)
    try:
        home.chmod(0o755)
        for path in (home / "ws", home / "data"):
            path.mkdir()
            os.chown(path, uid, uid)
        yield home, uid
    finally:
        shutil.rmtree(home)


@BWRAP
@pytest.mark.skipif(os.geteuid() != 0, reason="not root: every test above already ran bubblewrap unprivileged")
@pytest.mark.skipif(not Path("/usr/bin/python3").exists(), reason="the host has no /usr/bin/python3")
def test_a_non_root_worker_gets_the_same_walls(unprivileged_home: tuple[Path, int]) -> None:
    """Unprivileged, bubblewrap runs with --unshare-all and makes a user namespace itself: the
    filter still applies to the command, which cannot make another."""
    home, uid = unprivileged_home
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(PROJECT_ROOT), "AGENT_LAB_DATA": str(home / "data")}
    done = subprocess.run(
        [sys.executable, "-c", AS_NON_ROOT, str(uid), str(home / "ws")],
        cwd=PROJECT_ROOT, env=env, capture_output=True, text=True, timeout=90,
        # Its own session keyring: the key it plants stays out of this process's.
        preexec_fn=fresh_session_keyring(syscalls.native()),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    said = json.loads(done.stdout.splitlines()[-1])
    attack, unshare, etc = said["outputs"]
    assert said["canary"] not in attack
    assert all(call["result"] == -1 for call in calls(attack).values()) and len(calls(attack)) == 4, attack
    assert "Operation not permitted" in unshare, unshare
    assert etc.startswith("755\ngit version"), etc


# --- the filter itself --------------------------------------------------------------------------


def run_filter(code: bytes, arch: int, nr: int, arg0: int = 0) -> int:
    """The action a classic-BPF seccomp program returns for one call: the kernel's reading."""
    data = struct.pack("=iIQ6Q", nr, arch, 0, arg0, 0, 0, 0, 0, 0)
    program_ = [struct.unpack_from("=HBBI", code, offset) for offset in range(0, len(code), 8)]
    accumulator, pc = 0, 0
    while True:
        op, if_true, if_false, k = program_[pc]
        if op == 0x20:  # BPF_LD | BPF_W | BPF_ABS
            accumulator, pc = struct.unpack_from("=I", data, k)[0], pc + 1
        elif op == 0x06:  # BPF_RET
            return k
        else:
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[op]
            pc += 1 + (if_true if taken else if_false)


@pytest.mark.parametrize("arch", [X86_64, AARCH64], ids=lambda arch: arch.name)
def test_the_filter_denies_what_it_lists_and_allows_the_rest(arch: Architecture) -> None:
    code = program(arch)
    verdict = lambda name, arg0=0: run_filter(code, arch.audit_arch, arch.number(name), arg0)  # noqa: E731
    for denial in DENIALS:
        for name in set(denial.names) - (X86_ONLY - arch.numbers.keys()):
            assert verdict(name, 0xFFFFFFFF) == RET_ERRNO | denial.errno, name
    assert verdict("clone", 0x11 | 0x3D0F00) == RET_ALLOW  # a fork, a thread: SIGCHLD, CLONE_VM|...
    assert verdict("clone", CLONE_NEWUSER | 0x11) == RET_ERRNO | errno.EPERM
    assert verdict("unshare", 0x400) == RET_ALLOW  # CLONE_FILES
    assert verdict("unshare", 0x80) == RET_ERRNO | errno.EPERM  # CLONE_NEWTIME
    assert verdict("clone3") == RET_ERRNO | errno.ENOSYS
    getpid = {"x86_64": 39, "aarch64": 172}[arch.name]
    assert run_filter(code, arch.audit_arch, getpid) == RET_ALLOW
    assert run_filter(code, 0x40000003, getpid) == RET_KILL_PROCESS  # i386's int 0x80
    if arch.x32_bit is not None:
        assert run_filter(code, arch.audit_arch, arch.x32_bit | 39) == RET_KILL_PROCESS
        assert run_filter(code, arch.audit_arch, -1) == RET_ALLOW  # a tracer's skipped call


def test_every_denied_call_has_a_number_on_every_architecture() -> None:
    for denial in DENIALS:
        for name in denial.names:
            assert name in X86_64.numbers, name
            assert name in AARCH64.numbers or name in X86_ONLY, name


HEADERS = {
    "x86_64": [Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h"), Path("/usr/include/asm/unistd_64.h")],
    "aarch64": [Path("/usr/include/asm-generic/unistd.h"), Path("/usr/include/aarch64-linux-gnu/asm/unistd.h")],
}


@pytest.mark.parametrize("arch", [X86_64, AARCH64], ids=lambda arch: arch.name)
def test_the_tables_match_the_kernel_headers(arch: Architecture) -> None:
    header = next((path for path in HEADERS[arch.name] if path.is_file()), None)
    if header is None:
        pytest.skip(f"no kernel header for {arch.name} here (linux-libc-dev)")
    defined = dict(re.findall(r"#define __NR(?:3264)?_(\w+)\s+(\d+)", header.read_text()))
    assert {name: str(number) for name, number in arch.numbers.items()} == {
        name: defined[name] for name in arch.numbers
    }


def test_an_unknown_architecture_is_refused_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(syscalls.platform, "machine", lambda: "riscv64")
    with pytest.raises(SandboxUnavailable, match="riscv64"):
        syscalls.native()


@BWRAP
async def test_the_filter_is_loaded_and_answers_in_the_sandbox(workspace: Path) -> None:
    arch = syscalls.native()
    probes = {"keyctl": "0, -3, 0", "io_uring_setup": "1, None", "name_to_handle_at": "-1, None, None, None, 0"}
    script = "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
    script += f"print('getpid', libc.syscall({39 if arch is X86_64 else 172}) == os.getpid())\n"
    for name, args in probes.items():
        script += f"print({name!r}, libc.syscall({arch.number(name)}, {args}), ctypes.get_errno())\n"
    script += "print(open('/proc/self/status').read().split('Seccomp:')[1].split()[0])\n"
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(f"python -c {shlex.quote(script)}", workspace, 30)
    assert outcome.output.splitlines() == [
        "getpid True",
        "keyctl -1 1",
        "io_uring_setup -1 38",
        "name_to_handle_at -1 1",
        "2",  # SECCOMP_MODE_FILTER
    ], outcome.output


@BWRAP
@pytest.mark.skipif(syscalls.native() is not X86_64, reason="the x32 ABI is x86_64's")
async def test_a_call_through_the_x32_abi_kills_the_process(workspace: Path) -> None:
    """x32 numbers every call a second time (keyctl as 0x40000000 + 250): none gets past."""
    script = "import ctypes; ctypes.CDLL(None).syscall(0x40000000 | 39); print('survived')"
    outcome = await BubblewrapSandbox(lab_deps().artifacts).run(f"python -c {shlex.quote(script)}", workspace, 30)
    assert "survived" not in outcome.output
    assert outcome.exit_code == 128 + signal.SIGSYS, outcome
