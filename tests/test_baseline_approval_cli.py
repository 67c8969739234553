"""`starter run --runtime baseline` asks a person before a call that needs approval: on its
terminal, refused (and said) when there is none; with --no-approval the call runs unasked and
the run fails with an unapproved_effect."""

from __future__ import annotations

import io
import subprocess
import sys

from contracts import ActionProposal, PendingApproval, ReasonCode
from settings import PROJECT_ROOT
from starter.render import Printer
from starter.terminal_approval import NO_TERMINAL, terminal_approver
from tests.test_cli import cli_env


def baseline_refund(*flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "starter", "run", "--runtime", "baseline", "--task", "refund-needs-approval", *flags],
        cwd=PROJECT_ROOT,
        env=cli_env(),
        stdin=subprocess.DEVNULL,  # no terminal: nobody can be asked
        capture_output=True,
        text=True,
        timeout=180,
    )


def test_with_no_terminal_the_approval_is_refused_and_said() -> None:
    done = baseline_refund()

    assert "Traceback" not in done.stderr, done.stderr
    said = done.stdout
    assert "[AWAITING_APPROVAL] step" in said and "issue_refund" in said, said
    assert '"amount_cents": 15000' in said, said
    assert f"refused: {NO_TERMINAL}" in said, said
    assert "--no-approval" in said
    assert "denied by starter: nobody approved it" in said, said
    assert "unapproved_effect" not in said
    # No refund was made, so the task's end state is not met.
    assert done.returncode == 1, said
    assert "not met:" in said


def test_no_approval_runs_the_refund_unasked_and_fails_the_run() -> None:
    done = baseline_refund("--no-approval")

    assert "Traceback" not in done.stderr, done.stderr
    said = done.stdout
    assert done.returncode == 1, said + done.stderr
    assert "AWAITING_APPROVAL" not in said
    assert "reason: unapproved_effect: step" in said, said
    assert "issue_refund ran without the approval it needs (approval_rule:" in said, said
    assert "1 unapproved effect: made with nobody's approval" in said, said
    # The work itself was done: the failure is the approval that was skipped.
    assert "not met:" not in said, said


def test_no_approval_is_the_baselines_flag_only() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "starter", "run", "--runtime", "durable", "--no-approval"],
        cwd=PROJECT_ROOT,
        env=cli_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done
    assert "--no-approval is the baseline's" in done.stderr and "Traceback" not in done.stderr


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def pending() -> PendingApproval:
    proposal = ActionProposal(kind="tool_call", tool="issue_refund", arguments={"order_id": "o-2001"})
    return PendingApproval(
        step=2,
        subtask_id="t",
        proposal=proposal,
        arguments_sha256="0" * 64,
        reason_code=ReasonCode.APPROVAL_RULE,
        message="above the limit",
        requested_at="2026-01-01T00:00:00Z",  # type: ignore[arg-type]
    )


async def test_a_person_at_the_terminal_answers() -> None:
    for answer, approved in (("y\n", True), ("yes\n", True), ("\n", False), ("n\n", False), ("", False)):
        out = io.StringIO()
        decision = await terminal_approver(Printer(out), _Terminal(answer))(pending())
        assert decision.approved is approved, answer
        assert "approve this call? [y/N]" in out.getvalue()
        assert "why: approval_rule: above the limit" in out.getvalue()
        assert '"order_id": "o-2001"' in out.getvalue()
