"""The experiment's fault plan is read by every process while trials add to it: it is replaced
whole, never rewritten in place, so no reader sees half a plan."""

from __future__ import annotations

import threading
from pathlib import Path

from agent.faults import FaultPlan, FaultPoint, FaultSpec


def _plan(faults: int) -> FaultPlan:
    return FaultPlan(faults=[FaultSpec(point=FaultPoint.AFTER_EFFECT, run_id=f"run-{i}") for i in range(faults)])


def test_a_plan_is_replaced_whole_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    _plan(1).save(path)
    before = path.stat().st_ino
    _plan(2).save(path)
    assert path.stat().st_ino != before  # a new file renamed over the old, not the old rewritten
    assert FaultPlan.model_validate_json(path.read_text()) == _plan(2)
    assert [p.name for p in tmp_path.iterdir()] == ["faults.json"]


def test_readers_never_see_half_a_plan_while_it_grows(tmp_path: Path) -> None:
    path = tmp_path / "faults.json"
    _plan(1).save(path)
    errors: list[Exception] = []
    done = threading.Event()

    def read() -> None:
        while not done.is_set():
            try:
                FaultPlan.model_validate_json(path.read_text())
            except Exception as error:  # what a half-written plan would raise
                errors.append(error)

    reader = threading.Thread(target=read)
    reader.start()
    for faults in range(2, 400):
        _plan(faults).save(path)
    done.set()
    reader.join()
    assert errors == []
