"""What each containment limit holds an attack to: the attack runs in the sandbox under small
limits, and the table shows the bound, the worst measured over the runs, and the limit the
outcome named; then how long the host took to answer a probe while an attack ran beside it.

uv run python -m experiments.benchmarks.containment [--runs 3] [--quick]

The figures behind docs/security.md's containment table; tests/test_containment.py asserts
the same bounds. A backend or mechanism this host lacks gets a row that says so.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent.dependencies_from_environment import from_environment
from agent.sandbox import CommandOutcome, enforced_limits
from agent.sandbox.base import Limits, MiB
from agent.sandbox.bubblewrap import BubblewrapSandbox, unavailable_reason
from agent.sandbox.disk_quota import measure
from agent.sandbox.identity import workspace_owner

LIMITS = Limits(
    cpu_seconds=1,
    memory_bytes=256 * MiB,
    processes=64,
    disk_bytes=32 * MiB,
    disk_files=2000,
    tmp_bytes=16 * MiB,
    output_bytes=16 * MiB,
)
# The disk attacks are judged by their disk bound alone: on a loaded machine a filesystem's
# locks make each file cost more CPU, and 1 s of CPU could end them before their quota.
DISK_ATTACK_LIMITS = dataclasses.replace(LIMITS, cpu_seconds=30)
QUICK_RUNS = 1
Measure = Callable[[CommandOutcome, Path], float | None]


@dataclass(frozen=True)
class Attack:
    name: str
    command: str
    bound: float
    unit: str
    measured: Measure
    timeout_s: float = 20
    # Files the workspace holds before the attack (a large tree makes a walk slow).
    tree_files: int = 0
    limits: Limits = LIMITS


def _mib(value: int | None) -> float | None:
    return None if value is None else value / MiB


ATTACKS = [
    Attack(
        "disk: `yes > f`",
        "yes > f",
        LIMITS.disk_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(measure(ws).bytes),
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "disk: dd, 8 MiB files",
        "for i in $(seq 100); do dd if=/dev/zero of=f$i bs=1M count=8 2>/dev/null; done",
        LIMITS.disk_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(measure(ws).bytes),
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "disk: python, 4 MiB files",
        "python -c \"b = bytes(4 << 20)\nfor i in range(1000): open(f'f{i}', 'wb').write(b)\"",
        LIMITS.disk_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(measure(ws).bytes),
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "disk: python, 4 MiB files, in a tree of 20,000 files",
        "python -c \"b = bytes(4 << 20)\nfor i in range(1000): open(f'g{i}', 'wb').write(b)\"",
        LIMITS.disk_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(measure(ws).bytes - measure(ws / "tree").bytes - 4096),
        tree_files=20_000,
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "disk: head -c from /dev/urandom",
        "for i in $(seq 100); do head -c 4000000 /dev/urandom > f$i; done",
        LIMITS.disk_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(measure(ws).bytes),
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "disk: deleted files held open",
        "exec 3>a 4>b 5>c 6>d 7>e; rm a b c d e; "
        "for fd in 3 4 5 6 7; do head -c 20000000 /dev/zero >&$fd; done; sleep 30",
        LIMITS.disk_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(o.usage.disk_bytes),
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "disk: 100 000 empty files",
        "for i in $(seq 100000); do : > f$i; done",
        LIMITS.disk_files,
        "files",
        lambda o, ws: len(os.listdir(ws)),
        limits=DISK_ATTACK_LIMITS,
    ),
    Attack(
        "/tmp: `head -c 100M`",
        "head -c 100000000 /dev/zero > /tmp/x; stat -c %s /tmp/x",
        LIMITS.tmp_bytes / MiB,
        "MiB",
        lambda o, ws: int(o.output.split()[-1]) / MiB,
    ),
    Attack(
        "memory: `' ' * 10**10`",
        "python -c \"x = ' ' * 10**10\"",
        LIMITS.memory_bytes / MiB,
        "MiB",
        lambda o, ws: _mib(o.usage.memory_peak_bytes),
    ),
    Attack(
        "processes: fork bomb",
        "b(){ b | b & }; b; sleep 3",
        LIMITS.processes or 0,
        "processes",
        lambda o, ws: o.usage.processes_peak,
    ),
    Attack(
        "processes: 1000 threads",
        "python -c 'import threading, time\n"
        "for _ in range(1000): threading.Thread(target=time.sleep, args=(3,)).start()'",
        LIMITS.processes or 0,
        "processes",
        lambda o, ws: o.usage.processes_peak,
    ),
    Attack("cpu: one busy loop", "while :; do :; done", LIMITS.cpu_seconds, "s", lambda o, ws: o.usage.cpu_seconds, 30),
    Attack(
        "cpu: four busy loops",
        "for i in 1 2 3 4; do (while :; do :; done) & done; wait",
        LIMITS.cpu_seconds,
        "s",
        lambda o, ws: o.usage.cpu_seconds,
        30,
    ),
    Attack("output: `yes`", "yes", LIMITS.output_bytes / MiB, "MiB", lambda o, ws: _mib(o.usage.output_bytes)),
    Attack("wall time: `sleep 30`", "sleep 30", 1.0, "s", lambda o, ws: o.duration_ms / 1000, 1),
]
PROBE_ATTACK = "for i in 1 2 3 4; do (while :; do :; done) & done; b(){ b | b & }; b; wait"


async def main(runs: int) -> None:
    print(enforced_limits.describe())
    print()
    print("| attack | bound | worst measured | named limit | seconds |")
    print("| --- | ---: | ---: | --- | ---: |")
    if reason := unavailable_reason():
        print(f"| (bubblewrap cannot sandbox here: {reason}) | | | | |")
        return
    # Output too long to show goes to this process's artifact store, as a worker's would.
    store = from_environment().artifacts
    for attack in ATTACKS:
        sandbox = BubblewrapSandbox(store, attack.limits)
        worst: float | None = None
        named: set[str] = set()
        seconds = 0.0
        for _ in range(runs):
            outcome, value = await _once(sandbox, attack)
            named.add(str(outcome.limit) if outcome.limit else "none")
            seconds = max(seconds, outcome.duration_ms / 1000)
            if value is not None:
                worst = value if worst is None else max(worst, value)
        shown = "n/a" if worst is None else f"{worst:.2f}"
        print(
            f"| {attack.name} | {attack.bound:g} {attack.unit} | {shown} | {', '.join(sorted(named))} | {seconds:.2f} |"
        )
    print()
    # Its CPU time unbounded (past the probes), its rate and its processes not.
    latencies = await _probe_latencies(BubblewrapSandbox(store, Limits(processes=LIMITS.processes, cpu_seconds=60)))
    print("| probe beside a CPU + fork attack | probes | median ms | max ms |")
    print("| --- | ---: | ---: | ---: |")
    latencies.sort()
    median = latencies[len(latencies) // 2] if latencies else 0.0
    print(f"| `/bin/true` from the worker | {len(latencies)} | {median:.1f} | {max(latencies, default=0.0):.1f} |")


async def _once(sandbox: BubblewrapSandbox, attack: Attack) -> tuple[CommandOutcome, float | None]:
    with tempfile.TemporaryDirectory(prefix="containment-bench-") as scratch:
        workspace = Path(scratch) / "ws"
        workspace.mkdir()
        if os.geteuid() == 0:
            os.chown(workspace, *workspace_owner(Path(scratch).name))
        if attack.tree_files:
            await asyncio.to_thread(_fill_tree, workspace / "tree", attack.tree_files)
        outcome = await sandbox.run(attack.command, workspace, attack.timeout_s)
        try:
            return outcome, attack.measured(outcome, workspace)
        except (ValueError, IndexError):
            return outcome, None


def _fill_tree(tree: Path, files: int) -> None:
    """Hard links of one file, the workspace owner's: a walk stats each, and making them is quick."""
    owner = tree.parent.stat()
    tree.mkdir()
    one = tree / "one"
    one.write_bytes(b"x")
    for path in (tree, one):
        os.chown(path, owner.st_uid, owner.st_gid)
    for n in range(files):
        directory = tree / f"d{n // 500}"
        if not directory.exists():
            directory.mkdir()
            os.chown(directory, owner.st_uid, owner.st_gid)
        os.link(one, directory / f"f{n}")


async def _probe_latencies(sandbox: BubblewrapSandbox) -> list[float]:
    """Milliseconds each `/bin/true` took while the attack ran (one every 100 ms)."""
    attack = Attack("probe", PROBE_ATTACK, 0, "", lambda o, ws: None, 6)
    running = asyncio.create_task(_once(sandbox, attack))
    await asyncio.sleep(0.5)
    latencies: list[float] = []
    while not running.done():
        started = time.perf_counter()
        probe = await asyncio.create_subprocess_exec("/bin/true")
        await probe.wait()
        latencies.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.1)
    await running
    return latencies


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3, help="times each attack runs (the worst is shown)")
    parser.add_argument("--quick", action="store_true", help=f"a check that the benchmark runs: --runs {QUICK_RUNS}")
    args = parser.parse_args()
    asyncio.run(main(QUICK_RUNS if args.quick else args.runs))
