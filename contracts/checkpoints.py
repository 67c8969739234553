"""A checkpoint as its caller sees it: the commit, and what the workspace held that the
checkpoint does not (agent/checkpoint_snapshot.py): files over the size cap, FIFOs, sockets,
devices, unreadable files, and directories past the walk's depth cap. The model is told of them in the step's
feedback, since a rollback to this checkpoint removes them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

_MIB = 1 << 20
# A note, not an inventory: the first few name the problem, a count says the rest.
NOTED = 10


class LeftOut(BaseModel):
    """One entry of the workspace that the checkpoint does not hold."""

    # Relative to the workspace, printable (undecodable bytes shown as \\x.. escapes).
    path: str
    reason: Literal["too_large", "special", "too_deep", "unreadable"]
    # The file's size, for `too_large`.
    size: int = 0
    # The cap that left it out: bytes for `too_large`, levels for `too_deep`.
    limit: int = 0

    def describe(self) -> str:
        if self.reason == "too_large":
            return f"{self.path} ({self.size / _MIB:.1f} MiB, over {self.limit / _MIB:.0f} MiB)"
        if self.reason == "too_deep":
            return f"{self.path} (deeper than {self.limit} levels)"
        if self.reason == "unreadable":
            return f"{self.path} (unreadable)"
        return f"{self.path} (a FIFO, socket or device)"


class Checkpoint(BaseModel):
    commit: str
    left_out: list[LeftOut] = Field(default_factory=list)
    # Entries left out beyond those `left_out` lists (the list is capped).
    more_left_out: int = 0

    def note(self) -> str | None:
        """What the model should know, or None when the checkpoint holds the whole workspace."""
        if not self.left_out:
            return None
        named = "; ".join(entry.describe() for entry in self.left_out[:NOTED])
        more = len(self.left_out) - NOTED + self.more_left_out
        if more > 0:
            named += f"; and {more} more"
        return f"Left out of the checkpoint (a rollback to it removes them): {named}."
