"""The person a baseline run asks, on its terminal: the proposal, its tool and arguments and why it
needs approval, then y/N. With no terminal (stdin is not one: a pipe, a CI job, a background
run) nobody can be asked, and the call is refused, saying so: never run unasked."""

from __future__ import annotations

import asyncio
import getpass
import json
import os
import sys
from typing import TextIO

from baseline.approval import Approver, decided
from contracts import ApprovalDecision, PendingApproval
from starter.render import Printer

NO_TERMINAL = "no terminal to ask a person on (stdin is not a TTY)"


def terminal_approver(printer: Printer, stdin: TextIO | None = None) -> Approver:
    source = stdin or sys.stdin

    async def ask(pending: PendingApproval) -> ApprovalDecision:
        proposal = pending.proposal
        printer.line(f"  [AWAITING_APPROVAL] step {pending.step}: {proposal.describe()}")
        printer.line(f"    tool: {proposal.tool}")
        printer.line(f"    arguments: {json.dumps(proposal.arguments, ensure_ascii=False)}")
        printer.line(f"    why: {pending.reason_code}: {pending.message}")
        if not source.isatty():
            printer.line(f"    refused: {NO_TERMINAL}; the model is told, and the run goes on")
            printer.line("    (run it where you can answer, or with --no-approval to run such calls unasked)")
            return decided(pending, "starter", approved=False, reason=f"nobody approved it: {NO_TERMINAL}")
        printer.line("    approve this call? [y/N]")
        # In a thread: the read waits for a person, and the event loop (the run's) must not.
        answer = await asyncio.to_thread(source.readline)
        person = os.environ.get("AGENT_LAB_APPROVER") or getpass.getuser()
        if answer.strip().lower() in ("y", "yes"):
            printer.line(f"    approved by {person}")
            return decided(pending, person, approved=True)
        printer.line(f"    denied by {person}; the model is told")
        return decided(pending, person, approved=False, reason="the person at the terminal said no")

    return ask
