"""What an edit says when its text is not in the file: where the most similar text is, shown
with line numbers, so a model can correct its copy instead of guessing again."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from agent.tools.viewer import numbered, split_lines

# Below this similarity (difflib's ratio) nothing is offered: a wrong hint misleads.
MIN_SIMILARITY = 0.6
_SHOWN_LINES = 12
# Past this the search would take long; such files are rare in a workspace.
_MAX_LINES = 20_000
# A line as read_file shows it ("  12| code"): a model may copy the numbers into its edit.
_NUMBERED = re.compile(r"^\s*\d+\| ")


def not_found_message(shown_as: str, text: str, old: str) -> str:
    message = f"text to replace not found in {shown_as}"
    wanted = [line for line in split_lines(old) if line.strip()]
    if wanted and all(_NUMBERED.match(line) for line in wanted):
        message += ". Leave out the line numbers read_file shows"
    lines = split_lines(text)
    found = nearest_block(lines, old)
    if found is None:
        return message
    first, last = found
    width = len(str(last))
    shown = [numbered(number, lines[number - 1], width) for number in range(first, last + 1)][:_SHOWN_LINES]
    if last - first + 1 > _SHOWN_LINES:
        shown.append("...")
    where = f"line {first}" if first == last else f"lines {first}-{last}"
    return (
        f"{message}. The most similar text is at {where}:\n" + "\n".join(shown) + "\nCopy it exactly as old "
        "(without the line numbers), or replace those lines with edit_lines."
    )


def nearest_block(lines: Sequence[str], old: str) -> tuple[int, int] | None:
    """The 1-based first and last line of the run of lines most like `old` (as many lines as
    it has), or None when nothing is similar enough. Blocking (CPU)."""
    if not lines or len(lines) > _MAX_LINES:
        return None
    size = min(max(len(split_lines(old)), 1), len(lines))
    matcher = difflib.SequenceMatcher(autojunk=False)
    matcher.set_seq2(old.rstrip("\n"))
    best, best_ratio = None, MIN_SIMILARITY
    for index in range(len(lines) - size + 1):
        matcher.set_seq1("".join(lines[index : index + size]).rstrip("\n"))
        # The cheap upper bounds first: most blocks are ruled out without the real ratio.
        if matcher.real_quick_ratio() <= best_ratio or matcher.quick_ratio() <= best_ratio:
            continue
        ratio = matcher.ratio()
        if ratio > best_ratio:
            best, best_ratio = index, ratio
    return None if best is None else (best + 1, best + size)
