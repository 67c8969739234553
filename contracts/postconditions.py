"""Postconditions: checks of the real end state that decide whether work is done.

They are data, declared by a task spec or a plan, and evaluated by one checker
(`activities.postconditions`) for both runtimes, so success means the same thing
whichever runtime produced the state.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


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


Postcondition = Annotated[CommandExitCode | FileContains | FileNotContains, Field(discriminator="kind")]


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
