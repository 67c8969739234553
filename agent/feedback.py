"""What a model is told after each step. Pure string building, deterministic."""

from __future__ import annotations

import re

from contracts import ApprovalDecision, PostconditionResult, ToolResult, Verdict

_FEEDBACK_LIMIT = 4000
_GIST_LINES = 3
_CHECK_DETAIL_LIMIT = 240
# Durations change from run to run ("5 passed in 0.03s"). Hidden, the same run gives the same
# prompts (a cassette replays them, a server's prompt cache hits) and an unchanged status is
# told apart from a new one.
_DURATION = re.compile(r"\bin \d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")


def after_tool(result: ToolResult, check: PostconditionResult | None, *, told: str = "") -> str:
    """`told`: the status the model was last given in this task. The same again is said in a
    few words: each step's feedback is read once by the model, and a status repeated in full
    on every step of a task costs a small model seconds per call for nothing new."""
    parts = [result.summary()]
    if result.output:
        parts.append(_clip(result.output))
    if check is not None:
        status = after_check(check)
        same = without_durations(status) == without_durations(told)
        parts.append(f"Task postconditions: as before, {check.summary()}." if same else status)
    return "\n".join(parts)


def after_verdict(verdict: Verdict) -> str:
    if verdict.decision == "needs_approval":
        # No approver is wired to a run yet: for now such a proposal is refused.
        return f"needs a person's approval ({verdict.reason_code}): {verdict.message}; no approval is available"
    return f"rejected by the verifier ({verdict.reason_code}): {verdict.message}"


def after_denial(decision: ApprovalDecision) -> str:
    """A person refused the call: who, and why, in both runtimes."""
    return f"denied by {decision.approver}: {decision.reason}"


def after_check(check: PostconditionResult) -> str:
    """Short: it follows every step's own output in the durable runtime, and every token of it
    is one a small model must read (seconds on a CPU) and one fewer for the output itself."""
    lines = [f"Task postconditions: {check.summary()}."]
    for failure in check.failures():
        detail = f": {gist(failure.detail)}" if failure.detail else ""
        lines.append(f"- not yet: {failure.description}{detail}")
    return "\n".join(lines)


def gist(text: str, limit: int = _CHECK_DETAIL_LIMIT, joiner: str = " | ") -> str:
    """A text by its last lines, in one line, where a command says how it ended ("1 failed")."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    joined = joiner.join(lines[-_GIST_LINES:])
    return joined if len(joined) <= limit else "..." + joined[-limit:]


def without_durations(text: str) -> str:
    return _DURATION.sub("in <t>s", text)


def _clip(text: str, limit: int = _FEEDBACK_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 20] + "\n... [clipped]"
