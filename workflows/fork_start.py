"""The start of a forked run (`starter fork`): it arrives with its parent's state after step K
(`RunRequest.resume`) and where that came from (`RunRequest.fork`). Nothing of steps 1..K runs
again: no model is asked, no tool runs, no effect is made. The workspace is restored from the
parent's checkpoint after step K, the subtask's turns so far stored as the conversation the next
proposal refers to, and the ledger says whose fork this is; then the run goes on live, from
step K+1, with its own provider.
"""

from __future__ import annotations

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from contracts import PrepareForkInput, PrepareForkResult
    from contracts import activity_names as named
    from workflows import activity_options as options
    from workflows import calls
    from workflows.ledger_entries import about_run
    from workflows.run import Run


async def start_fork(run: Run) -> None:
    request, snapshot = run.request, run.snapshot
    origin = request.fork
    if origin is None:
        return
    # The fork's wall-time budgets count from its own start, as its usage goes on from the
    # parent's after step K.
    now = workflow.now()
    snapshot.started_at = snapshot.subtask.started_at = now
    asked = PrepareForkInput(
        world_id=request.world_id,
        parent_workspace=origin.parent_workspace,
        checkpoint=origin.checkpoint,
        turns=snapshot.subtask.turns,
        parent_world_id=origin.parent_world_id,
        effect_keys=origin.effect_keys,
    )
    summary = f"restore {origin.parent_run_id}'s checkpoint after step {origin.from_step}"
    prepared = await calls.call(named.PREPARE_FORK, asked, PrepareForkResult, options.PREPARE, summary)
    snapshot.workspace, snapshot.checkpoint, snapshot.sandbox = prepared.path, prepared.checkpoint, prepared.sandbox
    snapshot.subtask.conversation = prepared.conversation
    about = about_run(request, snapshot)  # its checkpoint: the parent's after step K, restored
    forked = run.entries.entry(
        "forked",
        now,
        **about,
        parent=origin.parent_run_id,
        from_step=origin.from_step,
        # Where its world came from, for a run on the operations service: the effects it holds
        # are its parent's, copied, not its own.
        parent_world=origin.parent_world_id,
        effects_carried=origin.effect_keys if origin.parent_world_id is not None else None,
    )
    await calls.append_to_ledger(run, [forked])
