"""Limits a run may spend. Enforced by code (workflow or loop), never by the model."""

from pydantic import BaseModel, ConfigDict, Field


class RunBudget(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_steps: int = Field(default=30, gt=0)
    max_steps_per_task: int = Field(default=12, gt=0)
