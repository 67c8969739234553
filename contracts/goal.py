"""The goal as the durable runtime works with it: interpreted, typed, and judged by data."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from contracts.postconditions import Postcondition


class GoalInterpretation(BaseModel):
    """What a model proposes a goal means. Proposals only: code builds the GoalSpec."""

    model_config = ConfigDict(extra="forbid")

    summary: str = Field(min_length=1)
    constraints: list[str] = Field(default_factory=list)


class GoalSpec(BaseModel):
    """A compiled goal. `acceptance` always holds the task's declared postconditions:
    a model may interpret the goal but never relax how it is judged."""

    goal: str
    summary: str
    constraints: list[str] = Field(default_factory=list)
    acceptance: list[Postcondition] = Field(default_factory=list)
