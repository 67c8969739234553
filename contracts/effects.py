"""A run's earlier effects: what its approval rules read, so that a limit holds over the run and
not over one call (twelve refunds of 10,000 cents are 120,000 cents refunded, as one refund of
120,000 would be).

Both runtimes keep the list in the same way (agent.earlier_effects): the durable one in its run
state (RunSnapshot.effects, carried across continue-as-new, cut at a fork's step, handed to a
subtask's child run), the baseline in memory.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from contracts.actions import ReasonCode


class EarlierEffect(BaseModel):
    """An external effect the run made: a call of a tool that acts outside the workspace
    (agent.tools.registry, `external_effects`) whose result was ok. A call that failed is not
    one: the service refused it or never saw it, and a retry of the same call under its key
    finds the effect if it happened after all."""

    model_config = ConfigDict(extra="forbid")

    # The run's step that made it (a subtask's child run counts its own steps).
    step: int = Field(ge=0)
    tool: str
    # As proposed and verified: they fit the tool's argument model.
    arguments: dict[str, JsonValue] = Field(default_factory=dict)


class UnapprovedEffect(BaseModel):
    """A call that needed a person's approval (agent.approval_need) and ran without one: a
    failure of the run whatever its end state, since the rule that asks was not honoured. The
    durable runtime cannot make one (it waits for the approval); a naive baseline makes one at
    every such call."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(ge=0)
    tool: str
    # Why it needed approval, as the verifier says it (its needs_approval verdict).
    reason_code: ReasonCode
    message: str

    def describe(self) -> str:
        return f"step {self.step}: {self.tool} ran without the approval it needs ({self.reason_code}: {self.message})"
