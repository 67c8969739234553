"""Containment when the command policy misses: each attack runs for real in the bubblewrap
sandbox under small limits, and the test measures the bound it met and reads the outcome's
name for it. A mechanism this host lacks is skipped with the reason (here all of them run).

The slack allowed over a watched bound (disk) is what one tick of the watcher lets a fast
writer add; the figures are in experiments/benchmarks/containment.py's table.
"""

from __future__ import annotations

import asyncio
import os
import time
import uuid
from pathlib import Path

import pytest

from agent.execution import execute
from agent.sandbox import CommandOutcome, cgroup_mounts, cgroups, disk_pace, enforced_limits
from agent.sandbox.base import Limits, MiB
from agent.sandbox.bubblewrap import BubblewrapSandbox, available, unavailable_reason
from agent.sandbox.disk_quota import measure
from agent.sandbox.process import ProcessSandbox
from contracts import ActionProposal, ExecuteToolInput, ResourceLimit
from experiments.benchmarks.containment import DISK_ATTACK_LIMITS, LIMITS
from tests.conftest import sandbox_workspace
from tests.lab_dependencies import lab_deps

pytestmark = pytest.mark.skipif(not available(), reason=f"bubblewrap cannot sandbox here: {unavailable_reason()}")
GROUPS = cgroups.support()


def needs(controller: str) -> pytest.MarkDecorator:
    return pytest.mark.skipif(not GROUPS.has(controller), reason=f"no {controller} control group here: {GROUPS.reason}")


# The benchmark's limits: the bounds asserted here are the ones docs/security.md reports.
SMALL = LIMITS
DISK_ATTACK = DISK_ATTACK_LIMITS
# What a writer at up to 1 GB/s adds between the watcher's last look under the quota and the
# stop. The watcher looks every 10-20 ms, but on a loaded machine (CI runs two test processes
# on two cores, each starting sandboxes) a look comes late: measured up to 40 MiB and 1,900
# files over on a quiet machine, 65 MiB and 5,100 files with a busy loop and a file-churning
# writer beside it (docs/security.md).
DISK_SLACK = 64 * MiB
FILES_SLACK = 6000
LARGE_TREE_SLACK = 64 * MiB


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    return sandbox_workspace(tmp_path)


async def run(command: str, workspace: Path, timeout_s: float = 20, limits: Limits = SMALL) -> CommandOutcome:
    return await BubblewrapSandbox(lab_deps().artifacts, limits).run(command, workspace, timeout_s)


# --- disk ----------------------------------------------------------------------------------


async def test_one_runaway_file_stops_at_the_quota_exactly(workspace: Path) -> None:
    outcome = await run("yes > f", workspace)
    assert outcome.limit is ResourceLimit.DISK, outcome
    assert measure(workspace).bytes <= SMALL.disk_bytes
    assert "32 MiB" in outcome.limit_message


@pytest.mark.parametrize(
    "writer",
    [
        pytest.param("for i in $(seq 100); do dd if=/dev/zero of=f$i bs=1M count=8 2>/dev/null; done", id="dd"),
        pytest.param("for i in $(seq 100); do head -c 4000000 /dev/urandom > f$i; done", id="head-urandom"),
        pytest.param(
            "python -c \"b = bytes(4 << 20)\nfor i in range(1000): open(f'f{i}', 'wb').write(b)\"",
            id="python-4MiB-files",
        ),
    ],
)
async def test_fast_writers_into_many_files_are_stopped_within_one_tick(workspace: Path, writer: str) -> None:
    outcome = await run(writer, workspace, limits=DISK_ATTACK)
    assert outcome.limit is ResourceLimit.DISK, outcome
    written = measure(workspace).bytes
    assert SMALL.disk_bytes <= written <= SMALL.disk_bytes + DISK_SLACK, written / MiB
    assert outcome.usage.disk_bytes is not None and outcome.usage.disk_bytes >= SMALL.disk_bytes


async def test_a_writer_in_a_large_tree_is_stopped_before_a_slow_walk_would_see_it(workspace: Path) -> None:
    """20,000 files take a walk hundreds of milliseconds on a loaded machine: the quick counts
    (bytes the command dirtied, the filesystem's growth) stop the writer meanwhile."""
    fill_tree(workspace, 20_000)
    before = measure(workspace).bytes
    outcome = await run(
        "python -c \"b = bytes(4 << 20)\nfor i in range(1000): open(f'g{i}', 'wb').write(b)\"",
        workspace,
        limits=DISK_ATTACK,
    )
    assert outcome.limit is ResourceLimit.DISK, outcome
    assert measure(workspace).bytes - before <= SMALL.disk_bytes + LARGE_TREE_SLACK


def fill_tree(workspace: Path, files: int) -> None:
    """Hard links of one file, the owner's: a walk stats each, and making them is quick."""
    owner = workspace.stat()
    one = workspace / "one"
    one.write_bytes(b"x")
    os.chown(one, owner.st_uid, owner.st_gid)
    for n in range(files):
        directory = workspace / f"d{n // 500}"
        if not directory.exists():
            directory.mkdir()
            os.chown(directory, owner.st_uid, owner.st_gid)
        os.link(one, directory / f"f{n}")


@needs("cpu")
async def test_a_command_near_its_disk_quota_is_slowed_until_it_is_not(workspace: Path) -> None:
    """Past a quarter of the quota the command runs at a tenth of a core, so that what it can
    write before the watcher's next tick is a tenth too; removing what it wrote lifts it."""
    busy = "timeout 2 sh -c 'while :; do :; done'"
    near = await run(f"head -c 12000000 /dev/zero > f; {busy}", workspace, limits=DISK_ATTACK)
    assert near.limit is None, near
    (workspace / "f").unlink()
    lifted = await run(f"head -c 12000000 /dev/zero > f; rm f; sleep 0.2; {busy}", workspace, limits=DISK_ATTACK)
    assert lifted.limit is None, lifted
    assert near.usage.cpu_seconds is not None and lifted.usage.cpu_seconds is not None
    assert near.usage.cpu_seconds <= 2 * disk_pace.SLOWED_CORES + 0.3, near.usage
    assert lifted.usage.cpu_seconds >= 2 * near.usage.cpu_seconds, (near.usage, lifted.usage)


async def test_many_small_files_are_stopped_at_the_file_quota(workspace: Path) -> None:
    outcome = await run("for i in $(seq 100000); do : > f$i; done", workspace, limits=DISK_ATTACK)
    assert outcome.limit is ResourceLimit.DISK, outcome
    assert SMALL.disk_files < len(os.listdir(workspace)) <= SMALL.disk_files + FILES_SLACK
    assert "files" in outcome.limit_message


async def test_deleted_files_still_open_count_against_the_quota(workspace: Path) -> None:
    """Invisible to a walk: counted from the command's open descriptors."""
    hidden = "exec 3>a 4>b 5>c 6>d 7>e; rm a b c d e; for fd in 3 4 5 6 7; do head -c 20000000 /dev/zero >&$fd; done"
    outcome = await run(f"{hidden}; sleep 30", workspace, limits=DISK_ATTACK)
    assert outcome.limit is ResourceLimit.DISK, outcome
    assert outcome.usage.disk_bytes is not None
    assert SMALL.disk_bytes <= outcome.usage.disk_bytes <= SMALL.disk_bytes + DISK_SLACK
    assert outcome.duration_ms < 10_000


async def test_the_sandbox_tmp_is_a_tmpfs_of_its_size(workspace: Path) -> None:
    outcome = await run("head -c 100000000 /dev/zero > /tmp/x; stat -c %s /tmp/x", workspace)
    assert "No space left on device" in outcome.output
    assert int(outcome.output.split()[-1]) <= SMALL.tmp_bytes


# --- memory, processes, CPU ------------------------------------------------------------------


@needs("memory")
async def test_a_memory_hog_is_killed_at_the_limit_and_named(workspace: Path) -> None:
    outcome = await run("python -c \"x = ' ' * 10**10\"", workspace)
    assert outcome.limit is ResourceLimit.MEMORY, outcome
    peak = outcome.usage.memory_peak_bytes
    assert peak is not None and peak <= SMALL.memory_bytes
    assert "out of memory" in outcome.limit_message


@needs("pids")
@pytest.mark.parametrize(
    "bomb",
    [
        pytest.param("b(){ b | b & }; b; sleep 3", id="fork-bomb"),
        pytest.param(
            "python -c 'import threading, time\n"
            "for _ in range(1000): threading.Thread(target=time.sleep, args=(3,)).start()'",
            id="thread-bomb",
        ),
    ],
)
async def test_process_and_thread_bombs_are_capped(workspace: Path, bomb: str) -> None:
    outcome = await run(bomb, workspace, timeout_s=10)
    assert outcome.limit is ResourceLimit.PROCESSES, outcome
    peak = outcome.usage.processes_peak
    assert peak is not None and peak <= SMALL.processes


@needs("cpuacct")
@pytest.mark.parametrize(
    "burner",
    [
        pytest.param("while :; do :; done", id="one-loop"),
        # Each process far below a per-process limit; together past the command's.
        pytest.param("for i in 1 2 3 4; do (while :; do :; done) & done; wait", id="four-loops"),
    ],
)
async def test_cpu_time_of_the_whole_command_is_bounded(workspace: Path, burner: str) -> None:
    outcome = await run(burner, workspace, timeout_s=30)
    assert outcome.limit is ResourceLimit.CPU_TIME, outcome
    used = outcome.usage.cpu_seconds
    assert used is not None and SMALL.cpu_seconds <= used <= SMALL.cpu_seconds + 0.5


async def test_wall_time_and_output_floods_are_named(workspace: Path) -> None:
    slow = await run("sleep 30", workspace, timeout_s=1)
    assert (slow.limit, slow.timed_out) == (ResourceLimit.WALL_TIME, True)
    flood = await run("yes", workspace)
    assert flood.limit is ResourceLimit.OUTPUT, flood
    assert SMALL.output_bytes < flood.usage.output_bytes < SMALL.output_bytes + 16 * MiB


# --- the host, the model, and a host without the mechanisms ---------------------------------


@needs("cpu")
@needs("pids")
async def test_the_host_answers_within_a_second_while_an_attack_runs(workspace: Path) -> None:
    attack = "for i in 1 2 3 4; do (while :; do :; done) & done; b(){ b | b & }; b; wait"
    running = asyncio.create_task(run(attack, workspace, timeout_s=6, limits=Limits(processes=64, cpu_seconds=60)))
    # Probed from the attack's start: on a loaded machine it may reach its process limit (and be
    # stopped) within a second, and a probe that waited first would see none of it.
    latencies = []
    while not running.done():
        started = time.perf_counter()
        probe = await asyncio.create_subprocess_exec("/bin/true")
        await probe.wait()
        latencies.append(time.perf_counter() - started)
        await asyncio.sleep(0.1)
    outcome = await running
    assert outcome.limit in (ResourceLimit.PROCESSES, ResourceLimit.WALL_TIME), outcome
    # The attack may be stopped at its process limit before many probes: say how many there were.
    assert len(latencies) >= 3 and max(latencies) < 1.0, (len(latencies), max(latencies, default=None), outcome)


async def test_a_limit_is_a_typed_tool_result_the_model_reads(workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def small_sandbox(deps: object) -> BubblewrapSandbox:
        return BubblewrapSandbox(lab_deps().artifacts, SMALL)

    monkeypatch.setattr("agent.execution.current_sandbox", small_sandbox)
    proposal = ActionProposal(tool="run_command", arguments={"command": "yes > f"})
    request = ExecuteToolInput(workspace=str(workspace), proposal=proposal, run_id=uuid.uuid4().hex, step=1)
    result = await execute(lab_deps(), request)
    assert (result.ok, result.limit) == (False, ResourceLimit.DISK)
    assert result.summary().startswith("run_command: stopped at its disk limit: the command grew the workspace")


async def test_without_control_groups_commands_still_run_and_say_what_held(
    workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(cgroups, "support", lambda: cgroups.Support(None, {}, "not writable here"))
    outcome = await run("python -c \"x = ' ' * 10**10\"; echo after", workspace)
    # RLIMIT_AS instead: the allocation fails in the process, nothing crashes.
    assert "MemoryError" in outcome.output and outcome.output.rstrip().endswith("after")
    assert ResourceLimit.MEMORY not in outcome.enforced and ResourceLimit.DISK in outcome.enforced
    assert "not writable here" in enforced_limits.describe()


@needs("pids")
async def test_a_daemon_that_left_the_process_group_dies_with_its_group(workspace: Path) -> None:
    """The plain-process backend has no PID namespace: a `setsid` child escapes the kill of the
    process group, and only the control group still holds it."""
    outcome = await ProcessSandbox(lab_deps().artifacts, SMALL).run("setsid sleep 30 & echo $!", workspace, 10)
    daemon = Path(f"/proc/{outcome.output.strip()}/status")
    assert not daemon.exists() or "zombie" in daemon.read_text(), "the daemon outlived its command"
    left = [group for base in GROUPS.bases.values() for group in base.glob(f"agent-lab-{os.getpid()}-*")]
    assert left == [], "a group was left behind"


def test_cgroup_v2_is_written_and_read_by_its_own_file_names(tmp_path: Path) -> None:
    """Not mounted here (v1 is): the v2 names, checked on plain files."""
    group = cgroups.CommandGroup(SMALL, cgroups.Support(2, {c: tmp_path for c in ("memory", "pids", "cpu")}))
    [directory] = set(group.dirs.values())
    written = {name: (directory / name).read_text() for name in ("memory.max", "pids.max", "cpu.max")}
    assert written == {"memory.max": str(256 * MiB), "pids.max": "64", "cpu.max": "100000 100000"}
    for name, text in {
        "memory.peak": "1234\n",
        "memory.events": "low 0\nmax 3\noom 1\noom_kill 1\n",
        "pids.events": "max 5\n",
        "cpu.stat": "usage_usec 1500000\nuser_usec 1000000\n",
    }.items():
        (directory / name).write_text(text)
    assert group.sample() == cgroups.Sample(1234, 1, None, 5, 1.5)
    for child in directory.iterdir():
        child.unlink()
    group.remove()
    assert not directory.exists()


def test_a_group_mounted_from_inside_a_container_is_found_under_its_mount() -> None:
    assert cgroup_mounts.inside((Path("/sys/fs/cgroup/memory"), "/"), "/a/b") == Path("/sys/fs/cgroup/memory/a/b")
    assert cgroup_mounts.inside((Path("/sys/fs/cgroup/memory"), "/docker/x"), "/docker/x/y") == Path(
        "/sys/fs/cgroup/memory/y"
    )
