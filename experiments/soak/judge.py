"""The end state of a soak's runs: completed and passing, ledgers whole, effects once."""

from __future__ import annotations

from pathlib import Path

from agent import ops_world
from agent.dependencies import Dependencies
from agent.ledger import read_events, verify_ledger
from agent.postconditions import check
from experiments.measure import duplicate_effects, repeated_keys
from experiments.soak.chaos import Soak
from experiments.soak.report import Judgement, RunProblem


async def judge(soak: Soak, deps: Dependencies) -> Judgement:
    """Every finished run's end state, ledger and world, judged where `deps` say they are (the
    cluster's data directory and service: LabCluster.dependencies)."""
    completed = verified = lost = duplicates = repeated = 0
    problems: list[RunProblem] = []
    for task, request, result in soak.finished:
        said = []
        # A run that ended before its workspace was prepared has none to judge (nor a ledger).
        judged = (
            await check(deps, Path(result.workspace), task.spec.postconditions, world_id=request.world_id)
            if result.workspace
            else None
        )
        if result.succeeded and judged is not None and judged.passed:
            completed += 1
        else:
            said.append(f"{result.outcome.value}: {result.reason or (judged.summary() if judged else 'no workspace')}")
        path = deps.ledgers.path(request.run_id)
        if path.exists():
            report = verify_ledger(path)
            if report.ok:
                verified += 1
            else:
                said.append(f"ledger: {report.first_error}")
            missing = {step.step for step in result.steps} - ledger_steps(path)
        else:
            said.append("no ledger")
            missing = {step.step for step in result.steps}
        lost += len(missing)
        if missing:
            said.append(f"ledger lacks steps {sorted(missing)}")
        if ops_world.seed_file(task.fixture_dir) is not None:
            state = await ops_world.world_state(deps.ops_url, request.world_id)
            duplicates += duplicate_effects(state)
            repeated += repeated_keys(state)
        if said:
            problems.append(RunProblem(run_id=request.run_id, task_id=task.spec.id, problem="; ".join(said)))
    return Judgement(
        completed=completed,
        ledgers_verified=verified,
        lost_ledger_steps=lost,
        duplicate_effects=duplicates,
        repeated_keys=repeated,
        problems=problems + soak.unfinished,
    )


def ledger_steps(path: Path) -> set[int]:
    """The steps the ledger holds events of."""
    return {event.step for event in read_events(path) if event.step is not None}
