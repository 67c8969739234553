"""A journal of what a baseline run's calls to the outside world gave back, so that a run killed
mid-way can be run again and go on where it was, the lightweight way (as DBOS, LangGraph's
checkpointer or Restate make a plain loop durable): under the same run id, every call the killed
attempt completed is read back from the journal instead of being made again (the model's answer,
the tool's result, a person's approval, what the workspace measured), and the loop goes on live
from the first call it had not completed.

Each entry is one JSON line, written and flushed to disk before the loop acts on the value, so
what a SIGKILL leaves is a prefix of complete entries (a line torn by the kill is dropped). A call
that was in flight when the process died is not in the journal and is made again; a tool call's
idempotency key (run id, step, tool, arguments) is the same on the rerun, so the effect store
keeps an external effect from happening twice.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, JsonValue, TypeAdapter, ValidationError

T = TypeVar("T")


class JournalEntry(BaseModel):
    step: int
    call: str
    value: JsonValue


class StepJournal:
    """The journal in the file at `path`: what is in it when opened is replayed; what is made
    live is appended."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._recorded: dict[tuple[int, str], JsonValue] = {}
        if path.exists():
            for line in path.read_text().splitlines():
                try:
                    entry = JournalEntry.model_validate_json(line)
                except ValidationError:
                    break  # torn by the kill: what came before it is the record
                self._recorded[(entry.step, entry.call)] = entry.value

    @property
    def replayable(self) -> int:
        """How many calls a run opening this journal reads back rather than makes."""
        return len(self._recorded)

    async def once(self, step: int, call: str, kind: TypeAdapter[T], make: Callable[[], Awaitable[T]]) -> T:
        """The call's recorded value when the journal has it; else the value `make` gives, made
        live and recorded before it is returned."""
        if (step, call) in self._recorded:
            return kind.validate_python(self._recorded.pop((step, call)))
        value = await make()
        entry = JournalEntry(step=step, call=call, value=kind.dump_python(value, mode="json"))
        await asyncio.to_thread(_append, self.path, entry.model_dump_json())
        return value

    def holds(self, step: int, call: str) -> bool:
        return (step, call) in self._recorded


def _append(path: Path, line: str) -> None:
    # fsync: the entry outlives the machine, not only the process (a kill alone would spare it).
    with path.open("a") as out:
        out.write(line + "\n")
        out.flush()
        os.fsync(out.fileno())
