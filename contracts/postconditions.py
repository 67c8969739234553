"""Postconditions: checks of the real end state that decide whether work is done.

They are data, declared by a task spec or a plan, and evaluated by one checker
(`activities.postconditions`) for both runtimes, so success means the same thing
whichever runtime produced the state: the workspace's files, or the run's tenant in the
operations service (`ops_service`).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Postcondition(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CommandExitCode(_Postcondition):
    """A shell command run in the workspace exits with the expected code."""

    kind: Literal["command_exit_code"] = "command_exit_code"
    command: str = Field(min_length=1)
    expect_exit_code: int = 0
    timeout_s: float = Field(default=120.0, gt=0)

    def describe(self) -> str:
        return f"`{self.command}` exits {self.expect_exit_code}"


class FileContains(_Postcondition):
    """A workspace file exists and contains the text."""

    kind: Literal["file_contains"] = "file_contains"
    path: str = Field(min_length=1)
    text: str = Field(min_length=1)

    def describe(self) -> str:
        return f"{self.path} contains {self.text!r}"


class FileNotContains(_Postcondition):
    """A workspace file does not contain the text (a missing file passes)."""

    kind: Literal["file_not_contains"] = "file_not_contains"
    path: str = Field(min_length=1)
    text: str = Field(min_length=1)

    def describe(self) -> str:
        return f"{self.path} does not contain {self.text!r}"


ServiceResource = Literal["refunds", "tickets", "accounts"]
# The fields of each resource's rows in the service's `GET /state`. A `where` on any other
# field is refused when the task loads: it would match nothing, and `expect: 0` would pass
# for a typo. Orders are not here: their rows are seeded, never created by an agent.
SERVICE_FIELDS: dict[str, frozenset[str]] = {
    "refunds": frozenset({"refund_id", "order_id", "amount_cents", "reason", "idempotency_key", "created_at"}),
    "tickets": frozenset({"ticket_id", "title", "body", "priority", "status", "idempotency_key", "created_at"}),
    "accounts": frozenset({"user", "email", "status", "disabled_reason", "disabled_at", "disabled_by_key"}),
}


class ServiceCount(_Postcondition):
    """The run's tenant in the operations service holds exactly `expect` rows of a resource
    whose fields equal every `where` value (no `where`: every row). A duplicated effect is
    one row too many, so "exactly" is the point."""

    kind: Literal["service_count"] = "service_count"
    resource: ServiceResource
    where: dict[str, str | int | bool] = Field(default_factory=dict)
    expect: int = Field(ge=0)

    @model_validator(mode="after")
    def _known_fields(self) -> ServiceCount:
        unknown = sorted(set(self.where) - SERVICE_FIELDS[self.resource])
        if unknown:
            known = ", ".join(sorted(SERVICE_FIELDS[self.resource]))
            raise ValueError(f"{self.resource} have no field {', '.join(unknown)} (they have: {known})")
        return self

    def describe(self) -> str:
        matching = ", ".join(f"{name}={value!r}" for name, value in self.where.items())
        where = f" where {matching}" if matching else ""
        return f"service {self.resource}{where}: exactly {self.expect}"


Postcondition = Annotated[CommandExitCode | FileContains | FileNotContains | ServiceCount, Field(discriminator="kind")]


class PostconditionOutcome(BaseModel):
    description: str
    passed: bool
    detail: str = ""


class PostconditionResult(BaseModel):
    """Every postcondition checked, and whether all of them held."""

    outcomes: list[PostconditionOutcome] = Field(default_factory=list)

    @property
    def passed(self) -> bool:
        return all(outcome.passed for outcome in self.outcomes)

    def failures(self) -> list[PostconditionOutcome]:
        return [outcome for outcome in self.outcomes if not outcome.passed]

    def summary(self) -> str:
        if not self.outcomes:
            return "no postconditions"
        held = sum(outcome.passed for outcome in self.outcomes)
        return f"{held}/{len(self.outcomes)} postconditions hold"
