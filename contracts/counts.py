"""A count with its noun, singular or plural as the count needs ("1 step", "3 steps"), for every
line a person reads. Pure: any layer may use it."""

from __future__ import annotations


def counted(count: int, noun: str, plural: str | None = None) -> str:
    """`plural` for a noun that does not just take an "s" ("1 entry", "2 entries")."""
    return f"{count} {noun if count == 1 else plural or noun + 's'}"


def steps_through(last: int) -> str:
    """Steps 1 to `last` of a run: "no steps", "step 1" or "steps 1..3", never "steps 1..0"."""
    if last < 1:
        return "no steps"
    return "step 1" if last == 1 else f"steps 1..{last}"
