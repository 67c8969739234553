"""Temporal history per step against a run's length: a synthetic scripted task of N steps, each
reading another 60-line window of a long file (an observation of about 2,400 characters, as a
real agent's reads are), run as a durable workflow on a dev server.

    uv run python -m experiments.benchmarks.history_size [--steps 10 50 200] [--plot FILE.png] [--quick]

History bytes are the sum of every event's protobuf size, over all of the run's generations (a
long run continues as new); the table says which events hold them. Payloads of 2 KB or more
are kept in the artifact store, their references in the history (host/converter.py): the bytes
stored that way are counted apart, as "stored by reference". Flat bytes per step means
history grows linearly with the run; bytes per step that grow with N mean a payload that
carries the run so far.
"""

from __future__ import annotations

import argparse
import asyncio
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from temporalio.api.enums.v1 import EventType
from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client

from experiments.benchmarks.scratch_server import scratch_server
from host.build import build_worker
from host.converter import ArtifactStoreDriver
from lab.runs.catalog import load_task
from lab.runs.durable_start import start_durable_run
from lab.runs.run_request import build_request
from workflows.outcome import run_result

QUICK_STEPS = (3, 6)
WINDOW = 60


@dataclass
class Weighed:
    steps: int
    generations: int
    events: int
    total: int
    by_kind: Counter[str]
    # Payload bytes the data converter kept in the artifact store instead (this process's client
    # and worker), and how many payloads.
    stored_bytes: int = 0
    stored_payloads: int = 0

    @property
    def per_step(self) -> float:
        return self.total / self.steps


def write_task(directory: Path, steps: int) -> Path:
    """A task whose scripted agent reads `steps - 1` windows of a long file, then writes `done.txt`."""
    repo = directory / "repo"
    (repo / "notes").mkdir(parents=True)
    lines = [f"line {number:05d}: the quick brown fox jumps over the lazy dog" for number in range(steps + WINDOW)]
    (repo / "notes" / "long.txt").write_text("\n".join(lines) + "\n")
    done = {"kind": "file_contains", "path": "done.txt", "text": "done"}
    actions = [
        {"thought": f"Read window {k}.", "tool": "read_file", "arguments": {"path": "notes/long.txt", "start_line": k}}
        for k in range(1, steps)
    ]
    actions.append(
        {"thought": "Say it is done.", "tool": "write_file", "arguments": {"path": "done.txt", "content": "done\n"}}
    )
    script = {
        "goal": {"summary": "Read the notes, then write done.txt.", "constraints": []},
        "plan": [{"id": "read", "title": "Read and finish", "postconditions": [done], "actions": actions}],
    }
    (directory / "script.yaml").write_text(yaml.safe_dump(script, sort_keys=False))
    spec = {
        "id": f"history-{steps}",
        "title": f"{steps} steps of reading",
        "tags": ["benchmark"],
        "goal": "Read notes/long.txt window by window, then write done.txt.",
        "fixture": "repo",
        "script": "script.yaml",
        "budget": {"max_steps": steps + 5, "max_steps_per_subtask": steps + 5},
        "postconditions": [done],
    }
    (directory / "task.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    return directory


async def weigh(client: Client, driver: ArtifactStoreDriver, task_dir: Path) -> Weighed:
    stored_before, payloads_before = driver.stored_bytes, driver.stored_payloads
    request = build_request(load_task(str(task_dir)), "durable")
    handle = await start_durable_run(client, request)
    result = await run_result(handle)
    if not result.succeeded:
        raise SystemExit(f"{request.run_id} ended {result.outcome.value}: {result.reason}")
    by_kind: Counter[str] = Counter()
    generations = events = 0
    async for run in client.list_workflows(f'WorkflowId = "{request.run_id}"'):
        generations += 1
        activity_of: dict[int, str] = {}
        async for event in client.get_workflow_handle(run.id, run_id=run.run_id).fetch_history_events():
            events += 1
            if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
                activity_of[event.event_id] = event.activity_task_scheduled_event_attributes.activity_type.name
            by_kind[_kind(event, activity_of)] += event.ByteSize()
    return Weighed(
        len(result.steps),
        generations,
        events,
        sum(by_kind.values()),
        by_kind,
        stored_bytes=driver.stored_bytes - stored_before,
        stored_payloads=driver.stored_payloads - payloads_before,
    )


def _kind(event: HistoryEvent, activity_of: dict[int, str]) -> str:
    """An event's type; an activity's scheduling or completion also names the activity (its
    input is in the one, its result in the other)."""
    kind = EventType.Name(event.event_type).removeprefix("EVENT_TYPE_").lower()
    if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED:
        kind += f" ({event.activity_task_scheduled_event_attributes.activity_type.name})"
    elif event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_COMPLETED:
        scheduled = event.activity_task_completed_event_attributes.scheduled_event_id
        kind += f" ({activity_of.get(scheduled, '?')})"
    return kind


async def main(sizes: Sequence[int], plot: Path | None) -> None:
    async with scratch_server("bench-history-") as (client, deps, driver), build_worker(client, dependencies=deps):
        weighed = [await weigh(client, driver, write_task(deps.data_dir / f"task-{n}", n)) for n in sizes]
    print("| steps | generations | events | history bytes | bytes per step | stored by reference, per step |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for w in weighed:
        by_reference = f"{w.stored_bytes / w.steps:,.0f} ({w.stored_payloads / w.steps:.1f} payloads)"
        print(f"| {w.steps} | {w.generations} | {w.events:,} | {w.total:,} | {w.per_step:,.0f} | {by_reference} |")
    longest = weighed[-1]
    print(f"\nWhere the bytes of the {longest.steps}-step run are, per step:\n")
    print("| events | bytes per step | share |")
    print("| --- | ---: | ---: |")
    for kind, size in longest.by_kind.most_common(10):
        print(f"| {kind} | {size / longest.steps:,.0f} | {size / longest.total:.0%} |")
    if plot is not None:
        _plot(weighed, plot)
        print(f"\nplot: {plot}")


def _plot(weighed: list[Weighed], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.6))
    axes.plot([w.steps for w in weighed], [w.total / 1000 for w in weighed], marker="o")
    axes.set_xlabel("steps in the run")
    axes.set_ylabel("Temporal history, KB")
    axes.set_title("History against run length (synthetic reading task)")
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0], formatter_class=argparse.ArgumentDefaultsHelpFormatter
    )
    parser.add_argument("--steps", type=int, nargs="+", default=[10, 50, 200], help="run lengths, steps")
    parser.add_argument("--plot", type=Path, help="also draw history bytes against steps into this PNG")
    parser.add_argument("--quick", action="store_true", help=f"a check that the benchmark runs: {QUICK_STEPS} steps")
    args = parser.parse_args()
    asyncio.run(main(QUICK_STEPS if args.quick else args.steps, args.plot))
