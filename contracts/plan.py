"""Plans: a DAG of subtasks, validated acyclic, run in a deterministic topological order.

A run does one benchmark task (contracts.task.Task); its plan splits it into subtasks. The
model-facing plan calls them "tasks" (the JSON it answers in, and what it is told about it), so
the serialized names stay `tasks` (contracts.wire_names).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.postconditions import Postcondition
from contracts.wire_names import WIRE_NAMES, renamed


class Subtask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    title: str = Field(min_length=1)
    instructions: str = ""
    depends_on: list[str] = Field(default_factory=list)
    # Empty: the subtask ends only when the model says it is finished.
    postconditions: list[Postcondition] = Field(default_factory=list)
    max_steps: int | None = Field(default=None, gt=0)


class PlanRevision(BaseModel):
    """Why a plan is drafted again, and what of it is done: a run whose subtask ran out of its
    budget, or whose work did not merge, asks for plan `version` (the last one's plus one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(ge=2)
    reason: str = Field(min_length=1)
    # Subtasks of earlier versions whose work is in the workspace already.
    done: list[str] = Field(default_factory=list)

    def told(self) -> str:
        """What a model is told beside the goal: the revised plan is the rest of the work."""
        done = ", ".join(self.done) or "none"
        return (
            f"The previous plan (v{self.version - 1}) failed: {self.reason}. Tasks already done, whose work "
            f"is in the workspace: {done}. Plan only the rest of the work, as plan v{self.version}."
        )


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid", **WIRE_NAMES)

    subtasks: list[Subtask] = renamed("subtasks", old="tasks", min_length=1)

    @model_validator(mode="after")
    def _check_dag(self) -> Plan:
        ids = [subtask.id for subtask in self.subtasks]
        duplicates = sorted({subtask_id for subtask_id in ids if ids.count(subtask_id) > 1})
        if duplicates:
            raise ValueError(f"duplicate task ids: {', '.join(duplicates)}")
        known = set(ids)
        # A model asked to repair its plan reads these (agent/providers/openai_provider.py): they say
        # "task", as the plan it answers in does.
        for subtask in self.subtasks:
            unknown = [dep for dep in subtask.depends_on if dep not in known]
            if unknown:
                raise ValueError(f"task {subtask.id!r} depends on unknown tasks: {', '.join(unknown)}")
            if subtask.id in subtask.depends_on:
                raise ValueError(f"task {subtask.id!r} depends on itself")
        self.topological_order()  # raises on a cycle
        return self

    def topological_order(self) -> list[Subtask]:
        """Kahn's algorithm; ties broken by declaration order, so the order is deterministic."""
        remaining = {subtask.id: set(subtask.depends_on) for subtask in self.subtasks}
        by_id = {subtask.id: subtask for subtask in self.subtasks}
        order: list[Subtask] = []
        while remaining:
            ready = [each.id for each in self.subtasks if each.id in remaining and not remaining[each.id]]
            if not ready:
                raise ValueError(f"plan has a dependency cycle among: {', '.join(sorted(remaining))}")
            for subtask_id in ready:
                order.append(by_id[subtask_id])
                del remaining[subtask_id]
            for deps in remaining.values():
                deps.difference_update(ready)
        return order
