"""ledger-chain-intact: the ledger file is one unbroken hash chain (`agent/ledger/scan.py`):
seq 1..n, each line's prev_hash the hash of the line before, each hash its line's content.
The other rules read the ledger as evidence; a chain that breaks means a line was changed,
dropped or inserted after it was written, and what follows the break cannot be trusted."""

from __future__ import annotations

from lab.invariants.report import Evidence, Violation, violation
from lab.invariants.story import Cite

RULE = "ledger-chain-intact"


def check(evidence: Evidence) -> list[Violation]:
    chain = evidence.chain
    if chain is None or chain.first_error is None:
        return []
    broken = chain.first_error
    message = f"the ledger's chain breaks at line {broken.line}: {broken.reason}"
    message += f"; {chain.events} events verify before it"
    return [violation(RULE, message, Cite(source="ledger", position=broken.line))]
