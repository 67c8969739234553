"""What a sandbox costs per command: `true` and a Python start-up, in each available backend.

uv run python -m experiments.benchmarks.sandbox_overhead [--runs 50] [--quick]

A backend that cannot run here (no Docker engine answers, or bubblewrap cannot make a sandbox)
gets a row that says why; the others are timed all the same.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from pathlib import Path

from agent.dependencies_from_environment import from_environment
from agent.sandbox import Sandbox, SandboxUnavailable, select_sandbox
from agent.sandbox.identity import workspace_owner

COMMANDS = {"true": "true", "python -c pass": "python -c pass"}
# The fewest runs that have a p95: every backend and command, in a few seconds.
QUICK_RUNS = 2


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as scratch:
        workspace = Path(scratch)
        if os.geteuid() == 0:
            os.chown(workspace, *workspace_owner(workspace.name))
        print("| backend | command | median ms | p95 ms |")
        print("| --- | --- | ---: | ---: |")
        artifacts = from_environment().artifacts
        for name in ("process", "bubblewrap", "docker"):
            try:
                sandbox = select_sandbox(name, artifacts)
            except SandboxUnavailable as error:
                print(f"| {name} | (unavailable: {error}) | | |")
                continue
            for label, command in COMMANDS.items():
                times = [await _time(sandbox, command, workspace) for _ in range(runs)]
                p95 = statistics.quantiles(times, n=20)[-1]
                print(f"| {name} | `{label}` | {statistics.median(times):.1f} | {p95:.1f} |")


async def _time(sandbox: Sandbox, command: str, workspace: Path) -> float:
    """The command's time in milliseconds; a command that failed times nothing worth printing."""
    outcome = await sandbox.run(command, workspace, 30)
    if outcome.exit_code != 0:
        raise SystemExit(f"{sandbox.name}: `{command}` exited {outcome.exit_code}: {outcome.output.strip()}")
    return outcome.duration_ms


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=50, help="times each command runs in each backend")
    parser.add_argument(
        "--quick", action="store_true", help=f"a check that the benchmark runs, in seconds: --runs {QUICK_RUNS}"
    )
    args = parser.parse_args()
    asyncio.run(main(QUICK_RUNS if args.quick else args.runs))
