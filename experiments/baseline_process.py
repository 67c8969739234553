"""The baseline loop in a process of its own, so an experiment can kill it as a crash would and
run it again as a user would.

    python -m experiments.baseline_process REQUEST.json RESULT.json JOURNAL.jsonl [ask|none]

Each finished step is appended to the journal as it happens (what a killed run had done, and
spent, before it died); the RunResult is written at the end. `ask` (the default): a call that
needs a person's approval is approved by the experiment's person, as a durable trial's is;
`none`: it runs unasked, as a naive loop's would (ExperimentConfig.baseline_approval).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path

from pydantic import BaseModel

from agent.dependencies_from_environment import from_environment
from baseline import BaselineLoop
from baseline.approval import approve_everything
from contracts import RunRequest, StepRecord


class JournalLine(BaseModel):
    time: float
    record: StepRecord


def read_journal(path: Path) -> list[JournalLine]:
    if not path.exists():
        return []
    lines = []
    for raw in path.read_text().splitlines():
        try:
            lines.append(JournalLine.model_validate_json(raw))
        except ValueError:
            break  # a line torn by the kill: what came before it is the record
    return lines


async def main(request_path: Path, result_path: Path, journal_path: Path, approval: str = "ask") -> int:
    request = RunRequest.model_validate_json(request_path.read_text())

    def journal(record: StepRecord) -> None:
        with journal_path.open("a") as out:
            out.write(JournalLine(time=time.time(), record=record).model_dump_json() + "\n")
            out.flush()

    # A process of its own: what the loop uses comes from the environment it was spawned with.
    approver = approve_everything if approval == "ask" else None
    loop = BaselineLoop(from_environment(), on_step=journal, retry_delay_s=0.5, approver=approver)
    result = await loop.run(request)
    result_path.write_text(result.model_dump_json())
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]), *sys.argv[4:5])))
