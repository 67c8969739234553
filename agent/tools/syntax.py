"""The syntax check every edit of a Python file passes, in-process (compile, never run).

An edit that breaks a file which compiled is refused and the file left as it was (SWE-agent's
choice): the model sees the error at once, on the line it wrote, rather than steps later in a
test run. A file that did not compile before the edit may still not compile after it (a model
repairs a broken file in several edits): that edit is kept, with a warning.
"""

from __future__ import annotations

import threading
import warnings
from pathlib import PurePath

from agent.tools.viewer import numbered, split_lines
from contracts.errors import SyntaxCheckFailed

PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
# warnings.catch_warnings changes process-wide state: checks take turns.
_WARNINGS = threading.Lock()


def check_edit(shown_as: str, new: str, old: str | None) -> str | None:
    """None when the edit is fine; a warning when `old` (None: no file) did not compile either.
    SyntaxCheckFailed when the edit breaks a file that compiled. Blocking (CPU)."""
    if PurePath(shown_as).suffix not in PYTHON_SUFFIXES:
        return None
    error = syntax_error(new, shown_as)
    if error is None:
        return None
    if old is not None and syntax_error(old, shown_as) is not None:
        return f"warning: {shown_as} still does not compile. {describe(error, new)}"
    raise SyntaxCheckFailed(f"edit refused, {shown_as} left unchanged: it would not compile. {describe(error, new)}")


def syntax_error(source: str, shown_as: str) -> SyntaxError | None:
    with _WARNINGS, warnings.catch_warnings():
        # A SyntaxWarning (an invalid escape like "\d") is not an error; where warnings are
        # errors, compile() would raise it as one.
        warnings.simplefilter("ignore")
        try:
            compile(source, shown_as, "exec", dont_inherit=True)
        except SyntaxError as error:
            return error
        except ValueError as error:  # Python 3.11: "source code string cannot contain null bytes"
            return SyntaxError(str(error))
    return None


def describe(error: SyntaxError, source: str) -> str:
    """The error, its line number, and the line with a caret under the place."""
    lines = split_lines(source)
    number = min(max(error.lineno or len(lines), 1), max(len(lines), 1))
    where = f"Line {number}: {error.msg}"
    if not lines:
        return where
    text = lines[number - 1].rstrip("\r\n")
    column = max(error.offset or 1, 1) if error.lineno == number else 1
    # Under the place, tabs kept as tabs so the caret lines up however they are shown.
    padding = "".join("\t" if char == "\t" else " " for char in text[: column - 1])
    caret = " " * (len(str(number)) + 2) + padding + "^"
    return f"{where}\n{numbered(number, text, len(str(number)))}\n{caret}"
