"""Fault injection at named points of the code, for crash tests and experiments.

A fault plan (JSON, a FaultPlan) lists faults (a worker is handed its path, from
AGENT_LAB_FAULT_PLAN: agent.dependencies.Dependencies.fault_plan); when running code
reaches a matching point, the fault fires once, for the whole machine: its marker file is
created before it acts, so a restarted process does not fire it again. A `kill` fault SIGKILLs
the process it fires in (a worker, or a baseline loop), as a crash would; a `transient_error`
makes the tool call fail in a way worth retrying; a `timeout` makes it time out. The plan may
grow while processes read it (faults are appended, never reordered).

    model_call       inside a model call, before its answer is returned
    tool_execution   while a tool runs (after `delay_s`): whether it acted first is not controlled
    before_effect    a call that changes something, its intent recorded, before the tool acts
    after_effect     after a tool acted, before its effect is recorded

`before_effect` and `after_effect` are the two controlled points of a crash in a tool: nothing
happened yet, or the effect happened and no record of it did.
"""

from __future__ import annotations

import asyncio
import os
import signal
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FAULT_PLAN_ENV = "AGENT_LAB_FAULT_PLAN"


class FaultPoint(StrEnum):
    MODEL_CALL = "model_call"
    TOOL_EXECUTION = "tool_execution"
    BEFORE_EFFECT = "before_effect"
    AFTER_EFFECT = "after_effect"


class FaultSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    point: FaultPoint
    action: Literal["kill", "transient_error", "timeout"] = "kill"
    # Narrow where it fires; None matches anything.
    run_id: str | None = None
    step: int | None = None
    tool: str | None = None
    delay_s: float = Field(default=0.2, ge=0)


class FaultPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    faults: list[FaultSpec]

    def save(self, path: Path) -> None:
        """Written beside, then renamed over the plan: every process reads the plan while an
        experiment adds trials' faults to it, and a plan rewritten in place can be read half
        written, and the process that read it fails."""
        scratch = path.with_name(f".{path.name}.{os.getpid()}.partial")
        scratch.write_text(self.model_dump_json(indent=2))
        os.replace(scratch, path)


def fired(plan_path: Path) -> list[int]:
    """Indexes of the plan's faults that have fired."""
    markers = _markers(plan_path)
    return sorted(int(p.name) for p in markers.glob("*")) if markers.is_dir() else []


async def reach(
    plan_path: Path | None, point: FaultPoint, *, run_id: str, step: int | None = None, tool: str | None = None
) -> Literal["transient_error", "timeout"] | None:
    """Fire the first fault of the plan at `plan_path` (agent.dependencies.Dependencies.fault_plan;
    None: no plan) that matches and has not fired yet (normally: do nothing). A kill does not
    return; a tool fault returns its action for the caller to carry out."""
    if plan_path is None:
        return None
    found = _matching(plan_path, point, run_id, step, tool)
    if found is None:
        return None
    plan_path, index, fault = found
    if fault.action != "kill":
        return fault.action if _mark(plan_path, index) else None
    if point == FaultPoint.TOOL_EXECUTION:
        asyncio.get_running_loop().call_later(fault.delay_s, _fire, plan_path, index)
    else:
        _fire(plan_path, index)
    return None


def _matching(
    plan_path: Path, point: FaultPoint, run_id: str, step: int | None, tool: str | None
) -> tuple[Path, int, FaultSpec] | None:
    plan = _load(plan_path, plan_path.stat().st_mtime_ns)
    done = set(fired(plan_path))
    for index, fault in enumerate(plan.faults):
        if index in done or fault.point != point:
            continue
        if fault.run_id not in (None, run_id) or fault.step not in (None, step) or fault.tool not in (None, tool):
            continue
        return plan_path, index, fault
    return None


def _fire(plan_path: Path, index: int) -> None:
    if _mark(plan_path, index):
        os.kill(os.getpid(), signal.SIGKILL)


def _mark(plan_path: Path, index: int) -> bool:
    """Claim the fault: True for exactly one caller on the machine, even among racing ones."""
    markers = _markers(plan_path)
    markers.mkdir(exist_ok=True)
    try:
        descriptor = os.open(markers / str(index), os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileExistsError:
        return False
    os.write(descriptor, f"{os.getpid()}\n".encode())
    os.fsync(descriptor)
    os.close(descriptor)
    return True


def fired_at(plan_path: Path, index: int) -> float | None:
    """When the fault fired (its marker's time), or None."""
    marker = _markers(plan_path) / str(index)
    return marker.stat().st_mtime if marker.exists() else None


def _markers(plan_path: Path) -> Path:
    return plan_path.with_name(plan_path.name + ".fired")


@cache
def _load(plan_path: Path, mtime_ns: int) -> FaultPlan:
    return FaultPlan.model_validate_json(plan_path.read_text())
