"""A run's history from the Temporal server: every generation, first to last.

A run that continued as new is several workflow executions under one workflow id; each one's
start event names the execution it continued (`continued_execution_run_id`), so the chain is
walked back from the latest, which is what the workflow id alone names.
"""

from __future__ import annotations

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from lab.invariants.evidence import require_agent_run

# A bound on the walk back: no run of the lab goes near it, and a loop cannot go on forever.
MAX_GENERATIONS = 1000


async def fetch_generations(client: Client, run_id: str) -> list[list[HistoryEvent]] | None:
    """None when the server has no workflow `run_id` (never started there, or past retention).
    An earlier generation past its retention ends the walk: the story starts where the
    generations held begin, with what the first of them carried."""
    generations: list[list[HistoryEvent]] = []
    execution: str | None = None
    while len(generations) < MAX_GENERATIONS:
        handle = client.get_workflow_handle(run_id, run_id=execution)
        try:
            events = list((await handle.fetch_history()).events)
        except RPCError as error:
            if error.status != RPCStatusCode.NOT_FOUND:
                raise
            break
        require_agent_run(events, f"workflow {run_id}")
        generations.insert(0, events)
        execution = events[0].workflow_execution_started_event_attributes.continued_execution_run_id or None
        if execution is None:
            break
    return generations or None
