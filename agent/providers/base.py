"""The one interface every model provider implements, used by both runtimes."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

from contracts import GoalInterpretation, Plan, PlanRevision, ProposeActionInput, ProposeActionResult, ToolSpec, Usage

T = TypeVar("T")


@dataclass(frozen=True)
class Reply(Generic[T]):
    value: T
    usage: Usage


class ModelProvider(Protocol):
    """Models only propose. Each method returns the proposal and the attempt's Usage.

    Transient failures raise ProviderUnavailable (retried by Temporal or the baseline);
    an answer that does not validate comes back as `ProposeActionResult.invalid_output`, so the
    caller can feed it back to the model instead of retrying blindly.
    """

    async def interpret_goal(self, goal: str, tools: list[ToolSpec] | None = None) -> Reply[GoalInterpretation]:
        """`tools`: those the prompt lists (the run's offered tools); None: every tool."""
        ...

    async def draft_plan(
        self, goal: str, summary: str, tools: list[ToolSpec], revision: PlanRevision | None = None
    ) -> Reply[Plan]:
        """The plan; with a `revision`, the plan drafted again for the rest of the work."""
        ...

    async def propose(self, request: ProposeActionInput, tools: list[ToolSpec]) -> ProposeActionResult: ...
