"""A validation error told as every place that reads a file or a line of input tells it: each
problem with where it is (`postconditions[2].path: Field required`), all of them, in pydantic's
order (the order of the model's fields, the same for the same input)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import ValidationError
from pydantic_core import ErrorDetails


# A value that only ever becomes text, never crosses a run's boundary: not one of the contracts'
# exported models.
@dataclass(frozen=True)
class Problem:
    location: str
    message: str

    def __str__(self) -> str:
        return f"{self.location}: {self.message}"


def problems_of(error: ValidationError, document: object = None) -> list[Problem]:
    """Every problem of `error`. `document` is the input that was validated: with it, a list
    index reads `plan[0]` and a tagged union's tag, which pydantic puts in the location, is
    left out (`postconditions[1].expect_exit_code`, not `postconditions.1.command_exit_code...`)."""
    found: list[Problem] = []
    for detail in error.errors(include_url=False):
        problem = _problem(detail, document)
        if problem not in found:
            found.append(problem)
    return found


def render(error: ValidationError, document: object = None) -> str:
    """One problem on one line; several as a count, then a line each (the caller puts the
    file's name before it)."""
    return told(problems_of(error, document))


def told(found: list[Problem]) -> str:
    """Problems as `render` tells them: those of a schema and those found after it together."""
    if len(found) == 1:
        return str(found[0])
    return f"{len(found)} problems:\n" + "\n".join(f"  {problem}" for problem in found)


def in_one_line(error: ValidationError, document: object = None) -> str:
    """Every problem, joined with "; ", for where one line is the contract (a JSON line, a
    ledger scan's reason)."""
    return "; ".join(str(problem) for problem in problems_of(error, document))


def _problem(detail: ErrorDetails, document: object) -> Problem:
    parts = list(detail["loc"])
    # A validator's own ValueError reads better without pydantic's prefix.
    message = detail["msg"].removeprefix("Value error, ")
    context = detail.get("ctx") or {}
    discriminator = str(context.get("discriminator", "")).strip("'\"")
    # A tagged union's bad or missing tag is a problem of the tag's field, said in its terms.
    if detail["type"] == "union_tag_invalid" and discriminator:
        parts.append(discriminator)
        message = f"Input should be one of {context['expected_tags']}, not {context['tag']!r}"
    elif detail["type"] == "union_tag_not_found" and discriminator:
        parts.append(discriminator)
        message = "Field required"
    return Problem(location=_location(parts, document) or "(top level)", message=message)


def _location(parts: list[int | str], document: object) -> str:
    shown = ""
    node = document
    for index, part in enumerate(parts):
        last = index == len(parts) - 1
        tried = isinstance(part, str) and node is not None and not isinstance(node, dict)
        if tried or (isinstance(node, dict) and part not in node and not last):
            # A name the input has no key for: the union member pydantic tried (a tag or a
            # type's name), not a place in the file. Only a missing field's own name is kept.
            continue
        if isinstance(part, int) and (node is None or isinstance(node, list)):
            shown += f"[{part}]"
        else:
            shown += f".{part}" if shown else str(part)
        node = _child(node, part)
    return shown


def _child(node: object, part: int | str) -> object:
    if isinstance(node, dict):
        return node.get(part)
    if isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
        return node[part]
    return None
