"""One subtask of the plan, step by step, until its postconditions hold or a budget ends the run:

    propose -> [finish: check the claim] | [tool call: verify -> (await approval) -> execute
    -> check] -> commit or reject

The model only proposes; every move, check and limit here is code.
"""

from __future__ import annotations

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from agent import feedback
    from agent.budget import Spent, disk_left, exhausted
    from agent.earlier_effects import earlier_effect
    from agent.executed_calls import executed_call
    from contracts import (
        ActionProposal,
        ExecuteToolInput,
        PostconditionResult,
        ProposeActionInput,
        RunState,
        Subtask,
        SubtaskProgress,
        ToolResult,
        Usage,
    )
    from contracts.counts import counted
    from contracts.tools import READ_ONLY_TOOLS
    from workflows import calls, tracing
    from workflows.approval_wait import await_approval
    from workflows.run import Run
    from workflows.step_end import StepEnd, end_step

S = RunState


async def run_subtask_steps(run: Run, subtask: Subtask, index: int, *, resumed: bool) -> str | None:
    """None once the subtask (the plan's `index`th) is done; else why the run ended (the run has
    moved to its end). `resumed`: it was under way when the last generation continued as new."""
    snapshot, request = run.snapshot, run.request
    if resumed:
        snapshot.subtask.id, snapshot.subtask.index = subtask.id, index
    else:
        snapshot.subtask = SubtaskProgress(id=subtask.id, index=index, started_at=workflow.now())
    subtask_limit = subtask.max_steps or request.budget.max_steps_per_subtask
    while True:
        if workflow.info().is_continue_as_new_suggested():
            await run.continue_as_new()
        run_wall = run.elapsed_s(snapshot.started_at) - snapshot.waited_s
        run_spent = Spent(snapshot.step, snapshot.usage, run_wall, disk=run.disk())
        subtask_wall = run.elapsed_s(snapshot.subtask.started_at) - snapshot.subtask.waited_s
        subtask_spent = Spent(
            len(snapshot.subtask.turns),
            snapshot.subtask.usage,
            subtask_wall,
            refused_claims=snapshot.subtask.refused_claims,
        )
        if reason := exhausted(request.budget, run_spent, subtask_spent, subtask_limit):
            run.move(S.BUDGET_EXHAUSTED)
            return f"{reason} in subtask {subtask.id!r} after {counted(snapshot.step, 'step')}"
        run.move(S.PROPOSING)
        snapshot.step += 1
        with tracing.step_span(run.run_id, subtask, snapshot.step):
            # The turns by reference: history grows by the same few hundred bytes a step, not by
            # the whole conversation again.
            asked = ProposeActionInput(
                provider=request.provider,
                goal=request.goal,
                subtask=subtask if _told(run) else subtask.model_copy(update={"postconditions": []}),
                history=[],
                conversation=snapshot.subtask.conversation,
                workspace=snapshot.workspace,
                workspace_files=snapshot.workspace_files,
                run_id=run.run_id,
                step=snapshot.step,
                tools=request.tools,
            )
            # The last step's record first, if it waits, in the same activity.
            proposed = await calls.propose(run, asked, f"step {snapshot.step}: propose ({subtask.id})")
            spent = proposed.usage + proposed.failed_attempts
            snapshot.usage += spent
            snapshot.subtask.usage += spent
            snapshot.wasted += proposed.failed_attempts
            proposal = proposed.proposal
            if proposal is None:
                said = f"unusable answer: {proposed.invalid_output}"
                await end_step(run, subtask, StepEnd("rejected", None, spent, said))
            elif proposal.kind == "give_up":
                run.move(S.FAILED)
                await end_step(run, subtask, StepEnd("rejected", proposal, spent, "the model gave up"), moved=True)
                return f"the model gave up on subtask {subtask.id!r}: {proposal.thought}"
            elif proposal.kind == "finish":
                if await _finish_holds(run, subtask, proposal, spent):
                    return None
            elif await _tool_step(run, subtask, proposal, spent):
                return None


async def _finish_holds(run: Run, subtask: Subtask, proposal: ActionProposal, usage: Usage) -> bool:
    """A claim of "done" is checked, never believed."""
    run.move(S.CHECKING)
    step = run.snapshot.step
    check = await calls.check(run, subtask.postconditions, f"step {step}: check the claim that {subtask.id} is done")
    run.snapshot.subtask.last_check = check
    if not check.passed:
        run.snapshot.subtask.refused_claims += 1
        run.snapshot.subtask.status = feedback.after_check(check)
        said = "claimed done, but " + (run.snapshot.subtask.status if _told(run) else "it is not done yet")
        await end_step(run, subtask, StepEnd("rejected", proposal, usage, said, check=check))
        return False
    await end_step(run, subtask, StepEnd("committed", proposal, usage, "done", check=check), last=True)
    return True


async def _tool_step(run: Run, subtask: Subtask, proposal: ActionProposal, usage: Usage) -> bool:
    """Verify, [await approval], execute, check. True when the subtask's postconditions hold.

    Two ways: a read-only tool is verified and, only if allowed, read, in one local activity,
    and its step reuses the subtask's last check; any other call is verified alone (a local
    activity), may wait for a person, then runs and is checked in one activity
    (activities/fused.py, docs/decisions/0005)."""
    snapshot = run.snapshot
    execution = ExecuteToolInput(
        workspace=snapshot.workspace,
        proposal=proposal,
        run_id=run.run_id,
        step=snapshot.step,
        world_id=run.request.world_id,
        checkpoint=snapshot.checkpoint,
        disk_left_bytes=disk_left(run.request.budget, run.disk()),
        tools=run.request.tools,
    )
    read_only = proposal.tool in READ_ONLY_TOOLS
    run.move(S.VERIFYING)
    result: ToolResult | None = None
    if read_only:
        verified = await calls.verify_then_read(run, execution)
        verdict, result = verified.verdict, verified.result
    else:
        verdict = await calls.verify(run, proposal)
    if verdict.decision == "reject":
        await end_step(run, subtask, StepEnd("rejected", proposal, usage, feedback.after_verdict(verdict), verdict))
        return False
    if verdict.decision == "needs_approval":
        if read_only:
            # No rule asks a person about a read (every profile permits one); said, not run.
            raise ApplicationError(f"a read needs no approval, yet: {verdict.message}", non_retryable=True)
        decision = await await_approval(run, subtask, proposal, verdict)
        if not decision.approved:
            said = feedback.after_denial(decision)
            await end_step(run, subtask, StepEnd("rejected", proposal, usage, said, verdict))
            return False

    run.move(S.EXECUTING)
    check: PostconditionResult | None = None
    if result is None:
        # The call and, if it succeeded, the subtask's check, in one activity.
        summary = f"step {snapshot.step}: {proposal.describe()}"
        done = await calls.execute_then_check(run, execution, subtask.postconditions, summary)
        result, check = done.result, done.check
    if result.artifact is not None:
        # The run's own reference to a shared, content-addressed store: counted by its size.
        snapshot.disk = snapshot.disk.with_artifact(result.artifact.size_bytes)
    if (ran := executed_call(snapshot.step, proposal, verdict, result)) is not None:
        snapshot.executed.append(ran)
    if (effect := earlier_effect(snapshot.step, proposal, result)) is not None:
        snapshot.effects.append(effect)
    if not result.ok:
        said = feedback.after_tool(result, None)
        await end_step(run, subtask, StepEnd("rejected", proposal, usage, said, verdict, result))
        return False

    # A subtask without postconditions ends only on a checked "finish". A step that only read
    # left the workspace as the subtask's last check found it: that check still holds, and the
    # model is told so as after any check that found nothing new. (It did not pass, or the
    # subtask would have ended.)
    run.move(S.CHECKING)
    if read_only and snapshot.subtask.last_check is not None:
        shown = snapshot.subtask.last_check if _told(run) else None
        said = feedback.after_tool(result, shown, told=snapshot.subtask.status)
        await end_step(run, subtask, StepEnd("committed", proposal, usage, said, verdict, result))
        return False
    if read_only and subtask.postconditions:
        # The subtask's first check, after a read that opened it.
        check = await calls.check(run, subtask.postconditions, f"step {snapshot.step}: check {subtask.id}")
    if check is not None:
        snapshot.subtask.last_check = check
    said = feedback.after_tool(result, check if _told(run) else None, told=snapshot.subtask.status)
    if check is not None:
        snapshot.subtask.status = feedback.after_check(check)
    done = check is not None and check.passed
    await end_step(run, subtask, StepEnd("committed", proposal, usage, said, verdict, result, check), last=done)
    return done


def _told(run: Run) -> bool:
    """Whether the model is told the subtask's checks and their status (RunRequest.show_acceptance:
    None, as before the setting, tells). The checks run and judge a "finish" either way."""
    return run.request.show_acceptance is not False
