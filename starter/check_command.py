"""`python -m starter check RUN [--history FILE]` and `python -m starter check --all`: the lab's
invariants (lab/invariants) over recorded runs, from their ledgers and Temporal histories.

RUN is a run id (its ledger under the data directory) or a ledger .jsonl; with `--history`
alone, the run is the one that history is of. The history comes from the file, or else from
the Temporal server: the one that answers at TEMPORAL_ADDRESS, or, when none is configured and
nothing answers, the embedded dev server started over the lab's own history file. Without a
history the rules that need one are skipped, and say so.

Exit 0 when no rule finds a violation, 1 when one does, 2 for bad input (no such run, a file
that is not a history), told in one line.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

from temporalio.api.history.v1 import HistoryEvent
from temporalio.client import Client
from temporalio.service import RPCError

from agent.dependencies import Dependencies
from agent.dependencies_from_environment import from_environment
from contracts.errors import StarterError
from host import temporal_config
from lab.invariants import InvariantReport, check_run, fetch_generations, gather, history_story, read_history
from lab.processes.temporal_server import default_database, is_listening, split_address
from lab.runs.baseline_runs import baseline_has_no_history
from starter.check_render import render_run, render_tally
from starter.connection import temporal_connection

EXIT_CLEAN, EXIT_VIOLATIONS = 0, 1


@dataclass
class HistoryServer:
    client: Client | None
    # Where histories come from, or why none are read.
    said: str


async def check_command(run: str | None, history: Path | None, *, every: bool) -> int:
    """What `starter check` was asked: one run, or `every` run, recorded under this process's
    data directory (its ledgers, and the artifacts its histories refer to)."""
    deps = from_environment()
    if every:
        if run or history:
            raise StarterError("check --all takes no RUN and no --history: it checks every run recorded here")
        return await check_all(deps)
    if run is None and history is None:
        raise StarterError("check needs a RUN id, a --history FILE, or --all")
    return await check(deps, run, history)


async def check(deps: Dependencies, run: str | None, history: Path | None) -> int:
    """One run: RUN, or the run `history` is of."""
    if history is not None:
        generations = [read_history(history)]
        run_id, ledger = _ledger(deps, run) if run is not None else _ledger_of(deps, generations)
        report = check_run(gather(run_id, ledger, generations, deps.artifacts, history_from=f"from {history}"))
    else:
        run_id, ledger = _ledger(deps, run or "")
        async with _history_server() as server:
            report = await _check_with(deps, server, run_id, ledger)
    print("\n".join(render_run(report)))
    return EXIT_CLEAN if report.clean else EXIT_VIOLATIONS


async def check_all(deps: Dependencies) -> int:
    """Every run with a ledger under the data directory."""
    directory = deps.ledgers.directory
    ledgers = sorted(directory.glob("*.jsonl"))
    if not ledgers:
        raise StarterError(f"no run is recorded under {directory}: no ledger to check (is AGENT_LAB_DATA right?)")
    reports: list[InvariantReport] = []
    async with _history_server() as server:
        print(f"histories: {server.said}")
        for path in ledgers:
            reports.append(report := await _check_with(deps, server, path.stem, path))
            print("\n".join(render_run(report, brief=True)))
    print("\n".join(render_tally(reports)))
    return EXIT_CLEAN if all(report.clean for report in reports) else EXIT_VIOLATIONS


async def _check_with(deps: Dependencies, server: HistoryServer, run_id: str, ledger: Path | None) -> InvariantReport:
    generations: list[list[HistoryEvent]] | None = None
    why_not = server.said
    if server.client is not None:
        try:
            generations = await fetch_generations(server.client, run_id)
            why_not = f"the server has no workflow {run_id}"
        except RPCError as error:
            why_not = f"its history could not be read: {error.message}"
    if ledger is None and generations is None:
        said = baseline_has_no_history(run_id, deps.ledgers)
        raise StarterError(said or f"no run {run_id!r}: no ledger at {deps.ledgers.path(run_id)}, and {why_not}")
    if generations is not None:
        return check_run(gather(run_id, ledger, generations, deps.artifacts, history_from=server.said))
    return check_run(gather(run_id, ledger, None, deps.artifacts, notes=[f"history not checked: {why_not}"]))


def _ledger(deps: Dependencies, run: str) -> tuple[str, Path | None]:
    """The run id and its ledger file, if there is one."""
    if run.endswith(".jsonl") or "/" in run:
        path = Path(run)
        if not path.is_file():
            raise StarterError(f"no ledger at {path}")
        return path.stem, path
    try:
        path = deps.ledgers.path(run)
    except ValueError as error:
        raise StarterError(str(error)) from None
    return run, path if path.is_file() else None


def _ledger_of(deps: Dependencies, generations: list[list[HistoryEvent]]) -> tuple[str, Path | None]:
    run_id = history_story(generations, deps.artifacts).run_id
    if run_id is None:
        raise StarterError("the history does not say which run it is of: its input is not a run request")
    path = deps.ledgers.path(run_id)
    return run_id, path if path.is_file() else None


@contextlib.asynccontextmanager
async def _history_server() -> AsyncIterator[HistoryServer]:
    """A client of the server the runs live on, if one answers or the lab's own can be started."""
    options = temporal_config.load()  # a bad profile or certificate: one line, before anything
    address = options.target_host
    database = default_database()
    if is_listening(*split_address(address)):
        async with temporal_connection(embed=False) as connection:
            yield HistoryServer(connection.client, f"from the Temporal server at {address}")
    elif not options.explicit and database.is_file():
        # The runs of `starter run` live in this file; the server that wrote them has exited.
        async with temporal_connection(embed=True) as connection:
            yield HistoryServer(connection.client, f"from {database} (its dev server started for this check)")
    else:
        said = f"nothing answers at {address} (start the runs' server, or pass --history FILE)"
        yield HistoryServer(None, said)
