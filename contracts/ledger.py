"""The ledger: an append-only, hash-chained audit trail of one run, written by activities.

Temporal history is the source of truth for workflow state; the ledger is the domain record
a person (or a report) reads: every proposal, verdict, tool result, check, commit, rollback
and approval, and which worker wrote it.
"""

from __future__ import annotations

from typing import Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue


def check_run_id(run_id: str) -> None:
    """A run id names a ledger file, so it must not be able to name any other: no separators,
    no NUL."""
    if run_id in ("", ".", "..") or any(char in run_id for char in "/\\\0"):
        raise ValueError(f"run id {run_id!r} cannot name a ledger file")


EventType = Literal[
    "run_started",
    # A forked run's first event: its parent, the step it forked after, the checkpoint.
    "forked",
    "goal_compiled",
    "plan_drafted",
    # A run with parallel subtasks: a child's end, its work merged (or not), a plan revised.
    "subtask_finished",
    "subtask_merged",
    "merge_conflict",
    "plan_revised",
    "proposal",
    "verdict",
    "approval_requested",
    "approval_decided",
    "tool_result",
    "postconditions",
    "commit",
    "rollback",
    "run_finished",
    "ledger_repaired",
]


class LedgerEntry(BaseModel):
    """What a writer asks to append. `event_id` is deterministic (run, step, type: a step has
    at most one event of each type), so an activity retry or a workflow replay that appends it
    again adds nothing."""

    model_config = ConfigDict(extra="forbid")

    event_id: str = Field(min_length=1)
    type: EventType
    run_id: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
    time: AwareDatetime
    step: int | None = None
    payload: dict[str, JsonValue] = Field(default_factory=dict)


class LedgerEvent(LedgerEntry):
    """A line of the ledger file: the entry, where it sits in the chain, and who wrote it.
    `hash` is sha256 over the canonical JSON of every other field as written on the line,
    `prev_hash` included."""

    seq: int = Field(ge=1)
    worker: str = Field(min_length=1)
    prev_hash: str = Field(pattern=r"^[0-9a-f]{64}$")
    hash: str = Field(pattern=r"^[0-9a-f]{64}$")
