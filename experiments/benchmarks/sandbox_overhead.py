"""What a sandbox costs per command: `true` and a Python start-up, in each available backend.

uv run python -m experiments.benchmarks.sandbox_overhead [--runs 50]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
from pathlib import Path

from agent.sandbox import SandboxUnavailable, select_sandbox
from agent.sandbox.identity import workspace_owner

COMMANDS = {"true": "true", "python -c pass": "python -c pass"}


async def main(runs: int) -> None:
    with tempfile.TemporaryDirectory(prefix="sandbox-bench-") as scratch:
        workspace = Path(scratch)
        if os.geteuid() == 0:
            os.chown(workspace, *workspace_owner(workspace.name))
        print("| backend | command | median ms | p95 ms |")
        print("| --- | --- | ---: | ---: |")
        for name in ("process", "bubblewrap", "docker"):
            try:
                sandbox = select_sandbox(name)
            except SandboxUnavailable as error:
                print(f"| {name} | (unavailable: {error}) | | |")
                continue
            for label, command in COMMANDS.items():
                times = [(await sandbox.run(command, workspace, 30)).duration_ms for _ in range(runs)]
                p95 = statistics.quantiles(times, n=20)[-1]
                print(f"| {name} | `{label}` | {statistics.median(times):.1f} | {p95:.1f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    asyncio.run(main(parser.parse_args().runs))
