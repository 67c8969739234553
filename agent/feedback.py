"""What a model is told after each step. Pure string building, deterministic."""

from __future__ import annotations

from contracts import PostconditionResult, ToolResult, Verdict

_FEEDBACK_LIMIT = 4000


def after_tool(result: ToolResult, check: PostconditionResult | None) -> str:
    parts = [result.summary()]
    if result.output:
        parts.append(_clip(result.output))
    if check is not None:
        parts.append(after_check(check))
    return "\n".join(parts)


def after_verdict(verdict: Verdict) -> str:
    if verdict.decision == "needs_approval":
        # No approver is wired to a run yet: for now such a proposal is refused.
        return f"needs a person's approval ({verdict.reason_code}): {verdict.message}; no approval is available"
    return f"rejected by the verifier ({verdict.reason_code}): {verdict.message}"


def after_check(check: PostconditionResult) -> str:
    lines = [f"Task postconditions: {check.summary()}."]
    for failure in check.failures():
        detail = f": {_clip(failure.detail, 1500)}" if failure.detail else ""
        lines.append(f"- not yet: {failure.description}{detail}")
    return "\n".join(lines)


def _clip(text: str, limit: int = _FEEDBACK_LIMIT) -> str:
    return text if len(text) <= limit else text[: limit - 20] + "\n... [clipped]"
