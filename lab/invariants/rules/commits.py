"""commit-verified: every committed step passed both halves of verification (a step counts only
when both pass). Before: a tool call committed only with a verdict that allowed it,
or one that asked for a person's approval and got it. After: the tool returned a successful
result, and a step that ended its subtask (a checked claim of "done", or the call after which the
subtask's postconditions held) did so on a passing postcondition check.

A step in the middle of a subtask commits while its postconditions still fail: that is
progress, kept as a checkpoint, not a claim that the subtask is done; what is checked there is
the tool's own success. The subtask's last step, where the run moved on, must have passed.
"""

from __future__ import annotations

from lab.invariants.report import Evidence, Violation, violation
from lab.invariants.story import RunStory, StepStory

RULE = "commit-verified"


def check(evidence: Evidence) -> list[Violation]:
    found: list[Violation] = []
    for story in evidence.stories():
        found += [each for told in story.steps if told.outcome == "commit" for each in _commit(told)]
        found += _subtasks_closed(story)
    return found


def _commit(told: StepStory) -> list[Violation]:
    """What the step shows against it; a fact it lacks counts only when the step was read whole."""
    proposal, at, whole = told.proposal, told.outcome_at, not told.unread
    said = f"step {told.step} committed"
    if proposal is None:
        return [violation(RULE, f"{said} without a proposal", at, told.proposal_at)] if whole else []
    if proposal.kind == "give_up":
        return [violation(RULE, f"{said} the model's giving up", at)]
    if proposal.kind == "finish":
        if told.check_passed is False or (told.check_passed is None and whole):
            how = "failed" if told.check_passed is False else "was never made"
            return [violation(RULE, f"{said} a claim of done whose check {how}", at, told.check_at)]
        return []
    call, verdict, approval, result = proposal.describe(), told.verdict, told.approval, told.result
    if verdict is None:
        return [violation(RULE, f"{said} {call} without a verdict", at)] if whole else []
    if verdict.decision == "reject":
        return [violation(RULE, f"{said} {call} though its verdict rejected it", at, told.verdict_at)]
    if verdict.decision == "needs_approval" and approval is not None and not approval.approved:
        message = f"{said} {call}, which {approval.approver} denied"
        return [violation(RULE, message, at, told.verdict_at, told.approval_at)]
    if verdict.decision == "needs_approval" and approval is None and whole:
        return [violation(RULE, f"{said} {call}, whose approval was never given", at, told.verdict_at)]
    if result is None:
        return [violation(RULE, f"{said} {call} without its result", at)] if whole else []
    if not result.ok:
        return [violation(RULE, f"{said} {call} though it failed ({result.summary()})", at, told.result_at)]
    return []


def _subtasks_closed(story: RunStory) -> list[Violation]:
    """The last step of each subtask the run moved past (and of the last one, when the run
    completed) committed on a passing check."""
    runs: list[list[StepStory]] = []  # the steps of each subtask, in the order the run took them
    for told in story.steps:
        if runs and told.subtask_id in (None, runs[-1][-1].subtask_id):
            runs[-1].append(told)
        else:
            runs.append([told])
    closed = runs if story.outcome == "COMPLETED" else runs[:-1]
    found: list[Violation] = []
    for index, steps in enumerate(closed):
        last = steps[-1]
        if last.outcome == "commit" and _passed(last):
            continue
        after = f"the run moved on to step {runs[index + 1][0].step}" if index + 1 < len(runs) else "the run completed"
        ended = "committed" if last.outcome == "commit" else (last.outcome or "not closed")
        which = f"subtask {last.subtask_id!r}" if last.subtask_id else "a subtask"
        message = f"{which} ended at step {last.step} ({ended}) without a passing check, yet {after}"
        found.append(violation(RULE, message, last.outcome_at or last.proposal_at, last.check_at))
    return found


def _passed(told: StepStory) -> bool:
    """Its check passed, or could not be read (not held against it)."""
    return told.check_passed is True or (told.check_passed is None and told.unread)
