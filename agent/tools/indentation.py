"""An edit's indentation fitted to where it lands, for an edit of a Python file that would not
compile as written.

A small model gets an edit's code right more often than its indentation. In the `small`
trials Qwen2.5-Coder-1.5B copied `old` without the line's leading spaces and wrote `new` with
them (8 spaces where the line had 4), wrote a whole module's content indented by 4, and
replaced a line with one indented for another place: each edit refused by the syntax check,
then proposed again as it was until the budget ran out. Aider and SWE-agent meet the same
failure; aider matches and re-indents by relative indentation.

So an edit the syntax check would refuse is tried once more, shifted: its lines moved together
so that its first non-blank line starts where the text it replaces started, the indentation of
its other lines relative to that first line kept. The shifted edit is written only if it
compiles, and the tool's answer says it was fitted; otherwise the edit is refused as before,
with the error of the edit as written. An edit that compiles as written is never changed.
"""

from __future__ import annotations

from agent.tools.viewer import split_lines


def leading(line: str) -> str:
    """The spaces and tabs `line` starts with."""
    return line[: len(line) - len(line.lstrip(" \t"))]


def shifted(block: str, first: str, rest: str) -> str | None:
    """`block` with its first non-blank line indented by `first` and each later line by `rest`
    plus its indentation beyond the first line's; blank lines emptied. None when that is
    `block` itself or it has no non-blank line."""
    lines = split_lines(block)
    base = next((leading(line) for line in lines if line.strip()), None)
    if base is None:
        return None
    fitted: list[str] = []
    started = False
    for line in lines:
        if not line.strip():
            fitted.append(line.lstrip(" \t"))
            continue
        body = line[len(base) :] if line.startswith(base) else line.lstrip(" \t")
        fitted.append((rest if started else first) + body)
        started = True
    text = "".join(fitted)
    return None if text == block else text


def fitted_at(text: str, position: int, block: str) -> str | None:
    """`block` fitted to replace text starting at `position` of `text`: its first line goes
    after what precedes it on that line (which must be indentation only), later lines at the
    line's indentation. None when the text there starts after code, or nothing would change."""
    line_start = text.rfind("\n", 0, position) + 1
    before = text[line_start:position]
    if before.strip():
        return None
    indentation = leading(text[line_start:])
    return shifted(block, indentation[len(before) :], indentation)


def fitted_lines(lines: list[str], start_line: int, block: str) -> str | None:
    """`block` fitted to replace (or be inserted before) line `start_line` of `lines`: at that
    line's indentation, or the previous line's when inserting at the end."""
    at = lines[start_line - 1] if start_line <= len(lines) else (lines[-1] if lines else "")
    indentation = leading(at)
    return shifted(block, indentation, indentation)


def told(said: str, where: str, error: str) -> str:
    """A tool's answer for an edit it fitted, saying so."""
    return f"{said}\n(indentation fitted to {where}: as written it would not compile, {error})"
