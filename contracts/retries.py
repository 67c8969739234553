"""How often a run tries a model call or a tool call, and how long it waits between tries: one
budget both runtimes honour (an experiment gives every arm the same one, METHOD.md)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class RetryBudget(BaseModel):
    """Attempts count the first try. The waits grow as Temporal's do: `initial_backoff_s`, then
    each `backoff_coefficient` times the last, never above `max_backoff_s`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model_attempts: int = Field(default=3, ge=1)
    tool_attempts: int = Field(default=3, ge=1)
    initial_backoff_s: float = Field(default=1.0, gt=0)
    backoff_coefficient: float = Field(default=2.0, ge=1)
    max_backoff_s: float = Field(default=30.0, gt=0)

    def backoff_s(self, attempt: int) -> float:
        """The wait after failed attempt number `attempt` (1: after the first try)."""
        return min(self.initial_backoff_s * self.backoff_coefficient ** (attempt - 1), self.max_backoff_s)

    def describe(self) -> str:
        return (
            f"{self.model_attempts} model and {self.tool_attempts} tool attempts, backoff "
            f"{self.initial_backoff_s:g} s x{self.backoff_coefficient:g} up to {self.max_backoff_s:g} s"
        )
