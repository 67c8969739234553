"""What a person sees in the terminal while a run goes and when it ends."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TextIO

from contracts import PendingApproval, PostconditionResult, RunResult, RunState, SandboxReport, StepRecord
from contracts.counts import counted
from starter.live_call import LivePace, ModelCallLine


class Printer:
    def __init__(self, stream: TextIO | None = None, *, pace: LivePace | None = None) -> None:
        self._stream = stream or sys.stdout
        self._closed = False
        # The model call in flight, if one has run a while (starter.live_call).
        self.calls = ModelCallLine(self._stream, self.line, pace)
        # A fork's steps up to here are its parent's, carried over, not run: they say so.
        self.carried_through = 0

    def line(self, text: str = "") -> None:
        if self._closed:
            return
        self.calls.clear()  # a live line is erased, not overwritten: it is drawn again below
        try:
            print(text, file=self._stream, flush=True)
        except BrokenPipeError:
            # The reader went away (`| head`); the run goes on and its record is kept.
            self._closed = True
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())

    def started(self, runtime: str, run_id: str, task_id: str, link: str | None = None) -> None:
        self.line(f"> {runtime} run {run_id} on task {task_id}")
        if link:
            self.line(f"  Web UI: {link}")

    def sandbox(self, report: SandboxReport) -> None:
        self.line(f"  {report.describe()}")

    def awaiting_approval(self, run_id: str, pending: PendingApproval) -> None:
        """What the run waits for, and the exact commands that answer it (from any terminal)."""
        self.line(f"  [AWAITING_APPROVAL] step {pending.step} ({pending.subtask_id}): {pending.proposal.describe()}")
        self.line(f"    why: {pending.reason_code}: {pending.message}")
        self.line(f"    approve: uv run python -m starter approve {run_id} --sha256 {pending.arguments_sha256}")
        self.line(f'    deny:    uv run python -m starter deny {run_id} --reason "..."')
        self.line("    (the run waits, holding no worker, until one of them answers)")

    def state(self, state: RunState) -> None:
        self.line(f"  [{state}]")

    def step(self, record: StepRecord) -> None:
        what = record.proposal.describe() if record.proposal else "(unusable answer)"
        parts = [f"step {record.step:>2}", f"{record.subtask_id}:", what, "->", record.outcome]
        if record.step <= self.carried_through:
            parts.append("(carried over)")
        if record.verdict and not record.verdict.allowed:
            parts.append(f"({record.verdict.reason_code})")
        details = [text for text in (record.result, record.postconditions) if text]
        if record.outcome == "rejected" and record.reason:
            details.append(_first_line(record.reason))
        line = " ".join(parts) + (" | " + " | ".join(details) if details else "")
        self.line("  " + line)

    def finished(self, result: RunResult, judged: PostconditionResult) -> None:
        committed = sum(step.outcome == "committed" for step in result.steps)
        rejected = len(result.steps) - committed
        mark = "ok" if result.succeeded and judged.passed else "FAILED"
        # "FAILED: FAILED" says nothing twice: the outcome is shown when it adds to the mark.
        head = mark if result.outcome == mark else f"{mark}: {result.outcome}"
        self.line(
            f"{head} in {result.wall_time_s:.1f} s, {counted(len(result.steps), 'step')} "
            f"({committed} committed, {rejected} rejected), {counted(result.usage.model_calls, 'model call')}, "
            f"~{counted(result.usage.total_tokens, 'token')}"
        )
        if result.reason and result.reason != result.outcome:
            self.line(f"  reason: {result.reason}")
        elif result.outcome == RunState.FAILED:
            self.line("  reason: none recorded; the last step above is where the run stopped")
        if result.unapproved_effects:
            # The reason names each; this says what they mean, whatever the end state below says.
            self.line(
                f"  {counted(len(result.unapproved_effects), 'unapproved effect')}: made with nobody's approval "
                "where its rule asks for one, so the run fails whatever its end state"
            )
        if result.plan:
            self.line(f"  plan: {plan_line(result.plan, result.plan_depends_on)}")
        self.line(f"  end state judged: {judged.summary()}")
        for failure in judged.failures():
            self.line(f"    not met: {failure.description}")
        self.line(f"  workspace: {result.workspace}")
        if result.sandbox is not None and not result.sandbox.sandboxed:
            # Said again at the end: the line at the start may have scrolled away.
            self.line(f"  {result.sandbox.describe()}")


def _first_line(text: str, limit: int = 120) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 3] + "..."


def plan_line(plan: list[str], depends_on: dict[str, list[str]]) -> str:
    """A chain as `a -> b -> c`; any other plan (subtasks that run at once, or wait for more than
    one) as its subtasks in order, each with what it waits for: `a, b (after a), c (after a)`.
    A result recorded before it carried the dependencies is shown as a chain, as it was then."""
    chain = all(depends_on.get(subtask, []) == plan[index - 1 : index] for index, subtask in enumerate(plan))
    if not depends_on or chain:
        return " -> ".join(plan)
    return ", ".join(
        f"{subtask} (after {', '.join(depends_on[subtask])})" if depends_on.get(subtask) else subtask
        for subtask in plan
    )
