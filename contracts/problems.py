"""A validation error told in one line, as every place that reads a file or a line of input
tells it: where the first problem is, what it is, and how many more there are."""

from __future__ import annotations

from pydantic import ValidationError


def first_problem(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "(top level)"
    # A validator's own ValueError reads better without pydantic's prefix.
    message = first["msg"].removeprefix("Value error, ")
    more = f" (and {error.error_count() - 1} more problems)" if error.error_count() > 1 else ""
    return f"{where}: {message}{more}"
