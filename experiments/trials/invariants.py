"""The lab's invariants (lab/invariants) over a durable trial: its ledger and, while the
experiment's cluster still holds it, its Temporal history, checked as `starter check` checks a
run. What a check cannot read is said, never counted as a violation of the agent's."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.service import RPCError

from agent.dependencies import Dependencies
from contracts.errors import LabError
from lab.invariants import check_run, fetch_generations, gather


async def trial_invariants(client: Client, deps: Dependencies, run_id: str) -> tuple[list[str] | None, str]:
    """Each violation as `rule: what (events)`; or None and why the run could not be checked.
    `deps`: the cluster's (its workers' ledgers, and the artifacts their histories refer to)."""
    try:
        generations = await fetch_generations(client, run_id)
        ledger = deps.ledgers.path(run_id)
        report = check_run(gather(run_id, ledger if ledger.is_file() else None, generations, deps.artifacts))
    except (RPCError, LabError, OSError) as error:
        return None, f"{type(error).__name__}: {error}"
    if generations is None:
        return None, f"the cluster's server has no workflow {run_id}"
    return [f"{found.rule}: {found}" for found in report.violations], ""
