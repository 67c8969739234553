"""A YAML syntax error told where a person finds it: the line and column (1-based), the
problem, and the offending line with a caret under the column."""

from __future__ import annotations

import re

import yaml

# What YAML counts as a line break (str.splitlines counts more, and would miscount lines).
_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")


def yaml_problem(error: yaml.YAMLError, text: str) -> str:
    """`not valid YAML at line L, column C: PROBLEM`, then the line and a caret under the
    column (the caller puts the file's name before it)."""
    lines = _BREAK.split(text)
    if lines[-1] == "":
        lines.pop()  # the text ends with a line break: no line after it
    if isinstance(error, yaml.MarkedYAMLError) and (mark := error.problem_mark or error.context_mark):
        said = error.problem or error.context or "not valid YAML"
        opened = error.context_mark
        if error.context and opened and mark.line >= len(lines):
            # The file ended inside something left open (a bracket, a quote): the line that
            # opened it is the one to show.
            said, mark = f"{said} ({error.context} started here)", opened
        elif error.context and opened and opened.line != mark.line:
            said += f" ({error.context} from line {opened.line + 1}, column {opened.column + 1})"
        line, column = mark.line, mark.column
    elif isinstance(error, yaml.reader.ReaderError):
        # A character YAML does not allow: its position is an offset into the text.
        said = str(error).splitlines()[0]
        before = _BREAK.split(text[: error.position])
        line, column = len(before) - 1, len(before[-1])
    else:
        return f"not valid YAML: {' '.join(str(error).split())}"
    header = f"not valid YAML at line {line + 1}, column {column + 1}: {said}"
    if line >= len(lines):
        return f"{header}\n  (the end of the file)"
    # A control character would act on the terminal rather than show: one "?" in its column.
    offending = "".join(char if char.isprintable() or char == "\t" else "?" for char in lines[line])
    # Tabs stay tabs under the line, so the caret lines up however the terminal shows them.
    pad = "".join(char if char == "\t" else " " for char in offending[:column])
    return f"{header}\n  {offending}\n  {pad}^"
