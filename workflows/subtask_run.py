"""A subtask's child run: one subtask of its parent's plan (RunRequest.subtask), in a git worktree
of the parent's workspace, within its own budget.

    prepare (a worktree at the parent's checkpoint) -> the subtask, step by step
    (workflows.subtask_steps) -> COMPLETED, or the budget's or the model's end

Its goal and plan are its parent's: no model is asked for them. Its steps, checkpoints and
ledger are its own, under its own run id (`PARENT.vN.SUBTASK`): step numbers, ledger event ids and
idempotency keys all derive from the run id, so two children never collide, and
`starter ledger CHILD` reads one child's story whole. The parent merges its last checkpoint.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from contracts import Plan, PrepareSubtaskInput, PrepareWorkspaceResult, RunState
    from contracts import activity_names as named
    from workflows import activity_options as options
    from workflows import calls
    from workflows.ledger_entries import about_run
    from workflows.run import Run
    from workflows.subtask_steps import run_subtask_steps

S = RunState


async def run_subtask(run: Run) -> str:
    """The child's one subtask; why it ended if not done ("" when done: the run is COMPLETED)."""
    request, snapshot = run.request, run.snapshot
    origin = request.subtask
    if origin is None:
        raise ApplicationError("run_subtask needs a request with a subtask", non_retryable=True)
    resumed = request.resume is not None
    if not resumed:
        now = snapshot.started_at = workflow.now()
        run.move(S.PREPARING)
        asked = PrepareSubtaskInput(
            run_id=run.run_id, parent_workspace=origin.parent_workspace, checkpoint=origin.checkpoint
        )
        summary = f"a worktree of {origin.parent_run_id}'s workspace for subtask {origin.subtask.id}"
        prepared = await calls.call(named.PREPARE_SUBTASK, asked, PrepareWorkspaceResult, options.PREPARE, summary)
        snapshot.workspace, snapshot.checkpoint, snapshot.sandbox = prepared.path, prepared.checkpoint, prepared.sandbox
        snapshot.workspace_files = origin.workspace_files
        # Its dependencies' work is in the worktree already: the subtask alone is its plan.
        snapshot.plan = Plan(subtasks=[origin.subtask.model_copy(update={"depends_on": []})])
        run.move(S.PLANNING)
        started = run.entries.entry(
            "run_started",
            now,
            **about_run(request, snapshot),
            goal=request.goal,
            parent=origin.parent_run_id,
            plan_task=origin.subtask.id,
            plan_version=origin.plan_version,
            budget=request.budget,
        )
        await calls.append_to_ledger(run, [started])
    if (ended := await run_subtask_steps(run, origin.subtask, 0, resumed=resumed)) is not None:
        return ended
    # The subtask's postconditions held at its last step: they are the subtask's acceptance. The
    # goal's own is the parent's, once every subtask's work is merged.
    await calls.flush(run)
    run.move(S.ACCEPTING)
    run.move(S.COMPLETED)
    return ""
