"""Where two recorded runs part: their steps side by side, from their ledgers, up to the
first step where they differ, and how each ended.

A forked run's ledger holds only its own steps, after the one it forked from: the steps before
are its parent's (its `forked` event says whose), and are read from there.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from agent.fingerprint import entry_states
from agent.ledger.store import LedgerStore
from agent.tools.declared_order import in_declared_order
from contracts import ActionProposal, LedgerEvent
from contracts.errors import StarterError, WalkTooLong
from lab.runs.run_ledger import read_ledger

# A fork of a fork of ...: a bound on the walk, so a ledger naming itself cannot loop.
_MAX_ANCESTORS = 100


@dataclass(frozen=True)
class DiffStep:
    step: int
    task: str
    # The proposal in full (kind, tool, arguments as canonical JSON; None: an unusable
    # answer): what two steps are compared on. `shown` is its one-line description, `full` the
    # same unshortened, both with the arguments in the order the tool declares them.
    proposal: str | None
    outcome: str  # committed, rejected, or "" (the step never closed)
    shown: str = field(default="", compare=False)
    full: str = field(default="", compare=False)


@dataclass
class RunRecord:
    run_id: str
    task: str = ""
    steps: list[DiffStep] = field(default_factory=list)
    outcome: str = ""
    reason: str = ""
    workspace: str = ""
    # (parent, step) for each fork in this run's ancestry, nearest first.
    ancestry: list[tuple[str, int]] = field(default_factory=list)


@dataclass(frozen=True)
class RunDiff:
    a: RunRecord
    b: RunRecord
    # The first step the two differ at (a proposal, an outcome, or one run has it and the
    # other not); None when every step is the same.
    first_difference: int | None
    # Files whose content differs between the two end states (None: a workspace is not here).
    files: list[str] | None


def read_run(ledgers: LedgerStore, run_id: str) -> RunRecord:
    """A run's steps and end, from its ledger in `ledgers` and, for a fork, its ancestors'.
    StarterError (one line) for a run with no readable ledger."""
    record = RunRecord(run_id)
    own = read_ledger(ledgers, run_id)
    steps: dict[int, DiffStep] = {}
    forked = next((event for event in own if event.type == "forked"), None)
    depth = 0
    while forked is not None:
        parent, from_step = str(forked.payload.get("parent")), int(forked.payload.get("from_step") or 0)
        record.ancestry.append((parent, from_step))
        depth += 1
        if depth > _MAX_ANCESTORS:
            raise StarterError(f"run {run_id!r}: its forks go back more than {_MAX_ANCESTORS} runs")
        events = read_ledger(ledgers, parent)
        for step in _steps(events):
            if step.step <= from_step:
                steps.setdefault(step.step, step)
        forked = next((event for event in events if event.type == "forked"), None)
    for step in _steps(own):
        steps[step.step] = step
    record.steps = [steps[number] for number in sorted(steps)]
    for event in own:
        if event.type in ("run_started", "forked"):
            record.task = str(event.payload.get("task") or record.task)
            record.workspace = str(event.payload.get("workspace") or record.workspace)
        elif event.type == "run_finished":
            record.outcome, record.reason = str(event.payload.get("outcome")), str(event.payload.get("reason") or "")
    return record


def diff_runs(a: RunRecord, b: RunRecord) -> RunDiff:
    """StarterError for runs of different tasks: they share no steps to compare."""
    if a.task != b.task:
        raise StarterError(f"unrelated runs: {a.run_id} is on task {a.task!r}, {b.run_id} on {b.task!r}")
    first = None
    for index in range(max(len(a.steps), len(b.steps))):
        left = a.steps[index] if index < len(a.steps) else None
        right = b.steps[index] if index < len(b.steps) else None
        if left != right:
            first = (left or right).step  # type: ignore[union-attr]
            break
    return RunDiff(a, b, first, _differing_files(Path(a.workspace), Path(b.workspace)))


def _steps(events: list[LedgerEvent]) -> list[DiffStep]:
    proposals: dict[int, tuple[str, str]] = {}
    outcomes: dict[int, str] = {}
    for event in events:
        if event.step is None:
            continue
        if event.type == "proposal":
            raw = event.payload.get("proposal")
            proposal = in_declared_order(ActionProposal.model_validate(raw)) if isinstance(raw, dict) else None
            proposals[event.step] = (str(event.payload.get("task") or ""), proposal)
        elif event.type in ("commit", "rollback"):
            outcomes[event.step] = "committed" if event.type == "commit" else "rejected"
    return [
        DiffStep(step, task, _canonical(proposal), outcomes.get(step, ""), _shown(proposal), _full(proposal))
        for step, (task, proposal) in sorted(proposals.items())
    ]


def _canonical(proposal: ActionProposal | None) -> str | None:
    if proposal is None:
        return None
    fields = {"kind": proposal.kind, "tool": proposal.tool, "arguments": proposal.arguments}
    return json.dumps(fields, sort_keys=True, ensure_ascii=False)


def _shown(proposal: ActionProposal | None) -> str:
    return proposal.describe() if proposal is not None else "unusable answer"


def _full(proposal: ActionProposal | None) -> str:
    if proposal is None or proposal.kind != "tool_call":
        return _shown(proposal)
    return f"{proposal.tool}({', '.join(f'{name}={value!r}' for name, value in proposal.arguments.items())})"


_NOT_COMPARED = {".git", "__pycache__", ".pytest_cache"}


# Comparing two workspaces reads them whole, by hand: longer than a step's fingerprint.
_COMPARE_DEADLINE_S = 120.0


def _differing_files(a: Path, b: Path) -> list[str] | None:
    if not (a.is_dir() and b.is_dir()):
        return None
    try:
        left, right = _states(a), _states(b)
    except WalkTooLong:
        return None
    return sorted(name for name in left.keys() | right.keys() if left.get(name) != right.get(name))


def _states(root: Path) -> dict[str, bytes]:
    """Each entry but directories by its state: a workspace is hostile (a FIFO in it is never
    opened, a deep tree never recursed into), so it is read as agent.fingerprint reads it."""
    states = entry_states(root, skip=_NOT_COMPARED.__contains__, deadline_s=_COMPARE_DEADLINE_S, content_bytes=None)
    return {name: state for name, state in states if not state.startswith((b"directory", b"not entered"))}
