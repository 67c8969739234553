"""Every module of `units` is documented and typed: a module docstring, and for every
function a docstring, an annotation on every parameter and a return annotation.

Also a script: `python tests/test_annotations.py [MODULE ...]` checks the modules named (all
of them without arguments), prints what is missing and exits 1 if anything is.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "units"
MODULES = ["length", "mass", "temperature", "duration", "volume", "speed", "area", "formatting"]


def problems(module: str) -> list[str]:
    path = PACKAGE / f"{module}.py"
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    if not ast.get_docstring(tree):
        found.append(f"units/{module}.py: no module docstring")
    functions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if not functions:
        found.append(f"units/{module}.py: no functions")
    for function in functions:
        where = f"units/{module}.py:{function.lineno} {function.name}()"
        if not ast.get_docstring(function):
            found.append(f"{where}: no docstring")
        arguments = function.args
        parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
        parameters += [argument for argument in (arguments.vararg, arguments.kwarg) if argument is not None]
        for parameter in parameters:
            if parameter.annotation is None and parameter.arg not in ("self", "cls"):
                found.append(f"{where}: parameter {parameter.arg!r} has no annotation")
        if function.returns is None:
            found.append(f"{where}: no return annotation")
    return found


def test_every_module_is_documented_and_typed():
    missing = [problem for module in MODULES for problem in problems(module)]
    assert missing == []


if __name__ == "__main__":
    unknown = [name for name in sys.argv[1:] if name not in MODULES]
    if unknown:
        sys.exit(f"unknown modules: {', '.join(unknown)} (modules: {', '.join(MODULES)})")
    report = [problem for module in sys.argv[1:] or MODULES for problem in problems(module)]
    print("\n".join(report) or "all documented and typed")
    sys.exit(1 if report else 0)
