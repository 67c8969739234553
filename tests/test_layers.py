"""The layout holds: the agent core and the baseline load no Temporal, nothing imports up the
layers, modules stay small, and every error the lab raises is in the one tree."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from contracts import errors
from settings import PROJECT_ROOT

# The code the layers contract covers; tests and the tasks' fixture repositories aside.
SOURCE = [
    path
    for path in PROJECT_ROOT.rglob("*.py")
    if path.relative_to(PROJECT_ROOT).parts[0]
    in {
        "agent",
        "activities",
        "baseline",
        "contracts",
        "experiments",
        "host",
        "lab",
        "ops_service",
        "starter",
        "workflows",
    }
    and "tasks" not in path.relative_to(PROJECT_ROOT).parts[:2]
] + sorted(PROJECT_ROOT.glob("*.py"))
# A simulated external system's HTTP errors, answered as statuses, never leaving its process.
APART = {PROJECT_ROOT / "ops_service" / "errors.py"}
MAX_LINES = 300


def loaded_after(statement: str) -> set[str]:
    probe = f"import sys\n{statement}\nprint(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))"
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=60, check=True
    )
    return set(done.stdout.split())


@pytest.mark.parametrize(
    "statement",
    [
        "import baseline.loop",
        "import pkgutil, importlib, agent\n"
        "for m in pkgutil.walk_packages(agent.__path__, 'agent.'): importlib.import_module(m.name)",
    ],
    ids=["baseline", "agent-core"],
)
def test_the_baseline_and_the_core_load_no_temporal(statement: str) -> None:
    loaded = loaded_after(statement)
    assert not loaded & {"temporalio", "workflows", "activities", "worker"}, loaded


def test_no_import_runs_up_the_layers() -> None:
    done = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")],
        cwd=PROJECT_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "BROKEN" not in done.stdout and "KEPT" in done.stdout


def test_the_root_holds_the_entry_point_the_settings_and_packages() -> None:
    """The worker process is the `host` package; the root keeps its entry point (`worker.py`)
    and the settings every process reads, and those settings import nothing above the contracts
    (no arrow runs back up the house)."""
    assert {path.name for path in PROJECT_ROOT.glob("*.py")} == {"worker.py", "settings.py"}
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(ast.parse((PROJECT_ROOT / "settings.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        (node.module or "").split(".")[0]
        for node in ast.walk(ast.parse((PROJECT_ROOT / "settings.py").read_text(encoding="utf-8")))
        if isinstance(node, ast.ImportFrom)
    }
    project = {path.name for path in PROJECT_ROOT.iterdir() if (path / "__init__.py").is_file()}
    assert imported & project <= {"contracts"}, imported & project


@pytest.mark.parametrize("path", sorted(SOURCE), ids=lambda path: str(path.relative_to(PROJECT_ROOT)))
def test_no_module_is_over_300_lines(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MAX_LINES, f"{lines} lines: a module this long holds more than one concept"


def test_every_exception_is_in_the_one_tree() -> None:
    outside = []
    for path in SOURCE:
        if path in APART or path == Path(errors.__file__):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef) and any(_names_an_error(base) for base in node.bases):
                outside.append(f"{path.relative_to(PROJECT_ROOT)}:{node.lineno} {node.name}")
    assert outside == []


def _names_an_error(base: ast.expr) -> bool:
    name = base.id if isinstance(base, ast.Name) else base.attr if isinstance(base, ast.Attribute) else ""
    return name in {"Exception", "BaseException", "ValueError", "RuntimeError"} or name.endswith("Error")
