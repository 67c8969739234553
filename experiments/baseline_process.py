"""The baseline loop in a process of its own, so an experiment can kill it as a crash would and
run it again as a user would.

    python -m experiments.baseline_process DIR [--approval ask|none] [--journal JOURNAL.jsonl]

DIR holds the attempt's `request.json`; the process writes there, as they happen, each finished
step (`steps.jsonl`: what a killed attempt had done, and spent, before it died) and each call it
makes live (`calls.jsonl`: when the run got back to where a killed attempt was), and the
RunResult at the end (`result.json`). `--approval ask` (the default): a call that needs a
person's approval is approved by the experiment's person, as a durable trial's is; `none`: it
runs unasked, as a naive loop's would (ExperimentConfig.baseline_approval). `--journal`: the
journaled loop (baseline.journal), which reads back what an earlier attempt of the same run
recorded there and goes on live from where it was killed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel

from agent.dependencies_from_environment import from_environment
from baseline import BaselineLoop, StepJournal
from baseline.approval import approve_everything
from contracts import RunRequest, StepRecord

Line = TypeVar("Line", bound=BaseModel)
REQUEST, RESULT, STEPS, CALLS = "request.json", "result.json", "steps.jsonl", "calls.jsonl"
# What the process writes to stderr (a traceback, when it fails), kept by whoever runs it.
STDERR = "stderr.log"


class StepLine(BaseModel):
    time: float
    record: StepRecord


class LiveCall(BaseModel):
    """A call to the outside world the attempt made live (not one read back from its journal)."""

    time: float
    step: int
    call: str


def read_steps(directory: Path) -> list[StepLine]:
    return _read_lines(directory / STEPS, StepLine)


def read_calls(directory: Path) -> list[LiveCall]:
    return _read_lines(directory / CALLS, LiveCall)


def _read_lines(path: Path, kind: type[Line]) -> list[Line]:
    if not path.exists():
        return []
    lines = []
    for raw in path.read_text().splitlines():
        try:
            lines.append(kind.model_validate_json(raw))
        except ValueError:
            break  # a line torn by the kill: what came before it is the record
    return lines


def _append(path: Path, line: BaseModel) -> None:
    with path.open("a") as out:
        out.write(line.model_dump_json() + "\n")


async def main(directory: Path, approval: str, journal: Path | None) -> int:
    request = RunRequest.model_validate_json((directory / REQUEST).read_text())
    # A process of its own: what the loop uses comes from the environment it was spawned with.
    loop = BaselineLoop(
        from_environment(),
        on_step=lambda record: _append(directory / STEPS, StepLine(time=time.time(), record=record)),
        on_live_call=lambda step, call: _append(directory / CALLS, LiveCall(time=time.time(), step=step, call=call)),
        retry_delay_s=0.5,
        approver=approve_everything if approval == "ask" else None,
        journal=StepJournal(journal) if journal is not None else None,
    )
    result = await loop.run(request)
    (directory / RESULT).write_text(result.model_dump_json())
    return 0


def _arguments(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m experiments.baseline_process", description=__doc__.split("\n")[0])
    parser.add_argument("directory", type=Path, help=f"the attempt's directory, holding its {REQUEST}")
    parser.add_argument("--approval", choices=["ask", "none"], default="ask")
    parser.add_argument("--journal", type=Path, default=None, help="the run's journal: read back, then appended to")
    return parser.parse_args(argv)


if __name__ == "__main__":
    arguments = _arguments(sys.argv[1:])
    sys.exit(asyncio.run(main(arguments.directory, arguments.approval, arguments.journal)))
