"""A run's earlier effects (contracts.effects): what a run remembers of a call, and which of
them a proposal's approval rule is given. Both runtimes call these two, so that their limits
agree. Pure (tool facts from `contracts.tools`): workflow code calls them.

A run acts on one world (RunRequest.world_id), so every effect it remembers is of that world;
a fork's world holds copies of its parent's effects up to the fork's step, and a fork starts
with those on its list (lab.runs.fork.snapshot_after).
"""

from __future__ import annotations

from collections.abc import Sequence

from contracts import ActionProposal, ToolResult
from contracts.effects import EarlierEffect
from contracts.tools import facts_of


def earlier_effect(step: int, proposal: ActionProposal, result: ToolResult) -> EarlierEffect | None:
    """The effect a call made, to remember: a call of a tool that acts outside the workspace,
    whose result was ok (replayed or recovered under its key included: the effect happened
    once, and is counted once, at this step). A call that failed is not remembered: the
    service refused it or never saw it."""
    facts = facts_of(proposal.tool)
    if facts is None or not facts.external_effects or not result.ok or proposal.tool is None:
        return None
    return EarlierEffect(step=step, tool=proposal.tool, arguments=proposal.arguments)


def for_rule(proposal: ActionProposal, effects: Sequence[EarlierEffect]) -> list[EarlierEffect]:
    """The earlier effects the proposal's approval rule reads: those of its own tool (a refund
    limit adds refunds). Only those travel to the verifier: the durable runtime sends them at
    every step, and a run's tickets, up to 5,000 characters each, are no refund rule's concern."""
    facts = facts_of(proposal.tool)
    if facts is None or not facts.approval_rule:
        return []
    return [effect for effect in effects if effect.tool == proposal.tool]
