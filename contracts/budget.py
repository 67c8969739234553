"""Limits a run may spend. Enforced by code (workflow or loop), never by the model."""

from pydantic import BaseModel, ConfigDict, Field


class RunBudget(BaseModel):
    """Per run and per plan task. None: no limit of that kind. Wall time does not count the
    time a run waits for a person's approval."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    max_steps: int = Field(default=30, gt=0)
    max_steps_per_task: int = Field(default=12, gt=0)
    max_tokens: int | None = Field(default=None, gt=0)
    max_tokens_per_task: int | None = Field(default=None, gt=0)
    max_cost_usd: float | None = Field(default=None, gt=0)
    max_cost_usd_per_task: float | None = Field(default=None, gt=0)
    max_wall_time_s: float | None = Field(default=None, gt=0)
    max_wall_time_s_per_task: float | None = Field(default=None, gt=0)
    # A run with parallel subtasks: how often it may draft its plan again when a subtask runs
    # out of its budget or its work does not merge (plan v1, then up to this many more).
    max_plan_revisions: int = Field(default=1, ge=0)
