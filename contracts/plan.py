"""Plans: a DAG of tasks, validated acyclic, run in a deterministic topological order."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from contracts.postconditions import Postcondition


class PlanTask(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1, pattern=r"^[A-Za-z0-9_.-]+$")
    title: str = Field(min_length=1)
    instructions: str = ""
    depends_on: list[str] = Field(default_factory=list)
    # Empty: the task ends only when the model says it is finished.
    postconditions: list[Postcondition] = Field(default_factory=list)
    max_steps: int | None = Field(default=None, gt=0)


class PlanRevision(BaseModel):
    """Why a plan is drafted again, and what of it is done: a run whose subtask ran out of its
    budget, or whose work did not merge, asks for plan `version` (the last one's plus one)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = Field(ge=2)
    reason: str = Field(min_length=1)
    # Tasks of earlier versions whose work is in the workspace already.
    done: list[str] = Field(default_factory=list)

    def told(self) -> str:
        """What a model is told beside the goal: the revised plan is the rest of the work."""
        done = ", ".join(self.done) or "none"
        return (
            f"The previous plan (v{self.version - 1}) failed: {self.reason}. Tasks already done, whose work "
            f"is in the workspace: {done}. Plan only the rest of the work, as plan v{self.version}."
        )


class Plan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tasks: list[PlanTask] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_dag(self) -> Plan:
        ids = [task.id for task in self.tasks]
        duplicates = sorted({task_id for task_id in ids if ids.count(task_id) > 1})
        if duplicates:
            raise ValueError(f"duplicate task ids: {', '.join(duplicates)}")
        known = set(ids)
        for task in self.tasks:
            unknown = [dep for dep in task.depends_on if dep not in known]
            if unknown:
                raise ValueError(f"task {task.id!r} depends on unknown tasks: {', '.join(unknown)}")
            if task.id in task.depends_on:
                raise ValueError(f"task {task.id!r} depends on itself")
        self.topological_order()  # raises on a cycle
        return self

    def topological_order(self) -> list[PlanTask]:
        """Kahn's algorithm; ties broken by declaration order, so the order is deterministic."""
        remaining = {task.id: set(task.depends_on) for task in self.tasks}
        by_id = {task.id: task for task in self.tasks}
        order: list[PlanTask] = []
        while remaining:
            ready = [task.id for task in self.tasks if task.id in remaining and not remaining[task.id]]
            if not ready:
                raise ValueError(f"plan has a dependency cycle among: {', '.join(sorted(remaining))}")
            for task_id in ready:
                order.append(by_id[task_id])
                del remaining[task_id]
            for deps in remaining.values():
                deps.difference_update(ready)
        return order
