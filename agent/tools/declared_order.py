"""A proposal's arguments in the order its tool declares them (`path` first for the file tools).

A ledger stores JSON with sorted keys, so a proposal read back from one has its arguments in
alphabetical order: `replace_in_file(new=..., old=..., path=...)`, where a shortened line hides
the path. Shown in the tool's order, it reads as the run printed it.
"""

from __future__ import annotations

from agent.tools.registry import TOOLS
from contracts import ActionProposal


def in_declared_order(proposal: ActionProposal) -> ActionProposal:
    """The same proposal, its arguments reordered; arguments the tool does not declare (a
    proposal the verifier refused) keep their order, after the declared ones."""
    tool = TOOLS.get(proposal.tool or "")
    if tool is None:
        return proposal
    rank = {name: index for index, name in enumerate(tool.arguments.model_fields)}
    ordered = sorted(proposal.arguments.items(), key=lambda item: rank.get(item[0], len(rank)))
    return proposal.model_copy(update={"arguments": dict(ordered)})
