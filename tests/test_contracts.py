"""Contracts: plan DAG validation, postcondition parsing, usage totals, and `contracts.__all__`."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from enum import Enum
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

import contracts
from contracts import (
    CommandExitCode,
    FileContains,
    FileNotContains,
    Plan,
    Postcondition,
    Subtask,
    TaskSpec,
    Usage,
)


def task(task_id: str, *depends_on: str) -> dict[str, Any]:
    return {"id": task_id, "title": task_id.title(), "depends_on": list(depends_on)}


def ids(tasks: list[Subtask]) -> list[str]:
    return [planned.id for planned in tasks]


# --- Plan ----------------------------------------------------------------------------------


def test_duplicate_task_ids_are_rejected() -> None:
    with pytest.raises(ValidationError, match="duplicate task ids: a"):
        Plan.model_validate({"tasks": [task("a"), task("b"), task("a")]})


def test_unknown_dependency_is_rejected() -> None:
    with pytest.raises(ValidationError, match="'b' depends on unknown tasks: ghost"):
        Plan.model_validate({"tasks": [task("a"), task("b", "ghost")]})


def test_self_dependency_is_rejected() -> None:
    with pytest.raises(ValidationError, match="'a' depends on itself"):
        Plan.model_validate({"tasks": [task("a", "a")]})


def test_cycle_is_rejected_naming_its_tasks() -> None:
    with pytest.raises(ValidationError, match="dependency cycle among: a, b, c"):
        Plan.model_validate({"tasks": [task("root"), task("a", "root", "c"), task("b", "a"), task("c", "b")]})


def test_empty_plan_is_rejected() -> None:
    with pytest.raises(ValidationError):
        Plan.model_validate({"tasks": []})


def test_topological_order_puts_dependencies_first() -> None:
    plan = Plan.model_validate(
        {"tasks": [task("deploy", "test", "build"), task("test", "build"), task("build", "fetch"), task("fetch")]}
    )
    order = ids(plan.topological_order())
    assert order == ["fetch", "build", "test", "deploy"]
    for planned in plan.subtasks:
        for dependency in planned.depends_on:
            assert order.index(dependency) < order.index(planned.id)


def test_topological_order_breaks_ties_in_declaration_order() -> None:
    assert ids(Plan.model_validate({"tasks": [task("z"), task("a"), task("m")]}).topological_order()) == [
        "z",
        "a",
        "m",
    ]
    diamond = Plan.model_validate(
        {"tasks": [task("top"), task("right", "top"), task("left", "top"), task("bottom", "left", "right")]}
    )
    assert ids(diamond.topological_order()) == ["top", "right", "left", "bottom"]


def test_topological_order_is_deterministic() -> None:
    raw = {"tasks": [task("c", "a"), task("b"), task("a"), task("d", "b", "c")]}
    orders = {tuple(ids(Plan.model_validate(raw).topological_order())) for _ in range(5)}
    assert orders == {("b", "a", "c", "d")}


@pytest.mark.parametrize("bad_id", ["", "has space", "slash/y"])
def test_plan_task_id_must_be_a_simple_name(bad_id: str) -> None:
    with pytest.raises(ValidationError):
        Subtask(id=bad_id, title="t")


# --- Postconditions ------------------------------------------------------------------------

POSTCONDITION = TypeAdapter(Postcondition)


def test_command_exit_code_parses_with_defaults() -> None:
    parsed = POSTCONDITION.validate_python({"kind": "command_exit_code", "command": "pytest"})
    assert parsed == CommandExitCode(command="pytest", expect_exit_code=0, timeout_s=120.0)


def test_file_contains_parses() -> None:
    parsed = POSTCONDITION.validate_python({"kind": "file_contains", "path": "a.py", "text": "x"})
    assert isinstance(parsed, FileContains)
    assert (parsed.path, parsed.text) == ("a.py", "x")


def test_file_not_contains_parses() -> None:
    parsed = POSTCONDITION.validate_python({"kind": "file_not_contains", "path": "a.py", "text": "x"})
    assert isinstance(parsed, FileNotContains)


def test_postconditions_round_trip_through_json() -> None:
    adapter = TypeAdapter(list[Postcondition])
    items = [
        CommandExitCode(command="grep x .", expect_exit_code=1),
        FileContains(path="a", text="b"),
        FileNotContains(path="c", text="d"),
    ]
    assert adapter.validate_json(adapter.dump_json(items)) == items


def test_task_spec_parses_each_kind() -> None:
    spec = TaskSpec.model_validate(
        {
            "id": "t",
            "title": "T",
            "goal": "g",
            "postconditions": [
                {"kind": "command_exit_code", "command": "true", "expect_exit_code": 1},
                {"kind": "file_contains", "path": "a", "text": "b"},
                {"kind": "file_not_contains", "path": "a", "text": "c"},
            ],
        }
    )
    assert [type(item) for item in spec.postconditions] == [CommandExitCode, FileContains, FileNotContains]
    assert spec.postconditions[0] == CommandExitCode(command="true", expect_exit_code=1)


@pytest.mark.parametrize(
    "raw",
    [
        {"kind": "file_exists", "path": "a"},
        {"path": "a", "text": "b"},
        {"kind": "file_contains", "path": "a"},
        {"kind": "file_contains", "path": "a", "text": ""},
        {"kind": "file_contains", "path": "a", "text": "b", "regex": True},
        {"kind": "command_exit_code", "command": "true", "timeout_s": 0},
    ],
)
def test_malformed_postconditions_are_rejected(raw: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        POSTCONDITION.validate_python(raw)


def test_postconditions_are_frozen() -> None:
    with pytest.raises(ValidationError):
        FileContains(path="a", text="b").text = "c"  # type: ignore[misc]


# --- Usage ---------------------------------------------------------------------------------


def test_usage_addition_sums_counts_and_keeps_first_named_provider() -> None:
    first = Usage(input_tokens=10, output_tokens=5, cost_usd=0.25, latency_ms=100, model_calls=1)
    second = Usage(input_tokens=3, output_tokens=2, cost_usd=0.5, latency_ms=50, model_calls=2, provider="p", model="m")
    total = first + second
    assert (total.input_tokens, total.output_tokens, total.model_calls) == (13, 7, 3)
    assert total.cost_usd == pytest.approx(0.75)
    assert total.latency_ms == pytest.approx(150)
    assert (total.provider, total.model) == ("p", "m")
    assert total.total_tokens == 20
    assert (second + first).provider == "p"


def test_usage_addition_does_not_mutate_operands() -> None:
    running = Usage()
    step = Usage(input_tokens=1, model_calls=1, provider="scripted")
    running += step
    running += step
    assert (running.input_tokens, running.model_calls, running.provider) == (2, 2, "scripted")
    assert step.input_tokens == 1


def test_usage_rejects_negative_counts() -> None:
    with pytest.raises(ValidationError):
        Usage(input_tokens=-1)


# --- contracts.__all__ ---------------------------------------------------------------------


def _submodules() -> list[Any]:
    return [importlib.import_module(f"contracts.{info.name}") for info in pkgutil.iter_modules(contracts.__path__)]


def test_every_name_in_all_exists() -> None:
    missing = [name for name in contracts.__all__ if not hasattr(contracts, name)]
    assert missing == []
    assert len(set(contracts.__all__)) == len(contracts.__all__)


def test_every_public_model_and_enum_is_exported() -> None:
    defined = {
        name: obj
        for module in _submodules()
        for name, obj in vars(module).items()
        if inspect.isclass(obj)
        and obj.__module__ == module.__name__
        and not name.startswith("_")
        and issubclass(obj, BaseModel | Enum)
    }
    assert defined, "no contract classes found: the discovery itself is broken"
    unexported = sorted(name for name in defined if name not in contracts.__all__)
    assert unexported == []
    for name, obj in defined.items():
        assert getattr(contracts, name) is obj
