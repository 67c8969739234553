"""A test run's output condensed for a model: what failed, where and why.

pytest's output is mostly progress, headers, tracebacks through other code, captured output
and warnings. A small model needs the summary line, the failing tests' ids and their `>` and
`E ` lines (SWE-agent's "concise observations"); the whole text stays in the command's
artifact for a person.
"""

from __future__ import annotations

import re

from agent.tools.output import MAX_OUTPUT_CHARS

CONDENSED_CHARS = MAX_OUTPUT_CHARS // 2
# Of one failure: its last lines, where the assertion and its location are.
_BLOCK_LINES = 16
_MAX_IDS = 20
_MAX_AFTER = 5
_NOTE_CHARS = 80
_MAX_LINE_CHARS = 200

_OUTCOMES = r"passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|rerun"
# pytest's last line: "1 failed, 3 passed in 0.05s", framed by "=" unless -q.
_SUMMARY = re.compile(rf"^=*\s*(?:no tests ran|(?:\d+ (?:{_OUTCOMES})(?:, |\s))+).*\bin \d+(?:\.\d+)?s\b.*$")
_SECTION = re.compile(r"^={3,} (.+?) ={3,}$")
_TEST = re.compile(r"^_{3,} (.+?) _{3,}$")
_CAPTURED = re.compile(r"^-{3,} .+ -{3,}$")
# "tests/test_stats.py:5: AssertionError", "src/stats.py:10: in median"
_LOCATION = re.compile(r"^[^\s:]+:\d+: \S")
_VERBOSE_FAILURE = re.compile(r"^\S+::\S.* (?:FAILED|ERROR)\b")
# The output is the command's, so the workspace's: `_SUMMARY` and `_VERBOSE_FAILURE` backtrack
# in time quadratic in a line's length, the GIL held (a 36 KB line of "1 passed " took 1.6 s; a
# 4 MiB one would take hours). pytest's own lines are short: longer ones are never matched.
_MAX_MATCHED_CHARS = 1000


def condense(output: str, limit: int = CONDENSED_CHARS) -> str | None:
    """pytest's output cut to its failures and summary, within about `limit` characters; None
    when `output` is not a pytest run's, or condensing would not make it shorter."""
    lines = output.splitlines()
    summary_at = next((index for index in reversed(range(len(lines))) if _match(_SUMMARY, lines[index])), None)
    if summary_at is None:
        return None
    failures, ids = _failures_and_ids(lines[:summary_at])
    shown_ids = [_clip(line) for line in ids[:_MAX_IDS]]
    if len(ids) > _MAX_IDS:
        shown_ids.append(f"... and {len(ids) - _MAX_IDS} more")
    after = [_clip(line) for line in lines[summary_at + 1 :][:_MAX_AFTER]]
    tail = "\n".join([*shown_ids, lines[summary_at], *after])
    head = f"[pytest output condensed from {len(lines)} lines: only what failed, where and why]"
    # Two newlines join head, blocks and tail; the note on failures left out needs its line too.
    room = limit - len(head) - len(tail) - 2 - _NOTE_CHARS
    blocks: list[str] = []
    for failure in failures:
        block = "\n".join([failure[0], *failure[1:][-_BLOCK_LINES:]])
        if len(block) + 1 > room:
            break
        blocks.append(block)
        room -= len(block) + 1
    if len(blocks) < len(failures):
        blocks.append(f"... {len(failures) - len(blocks)} more failures not shown (run them one at a time)")
    condensed = "\n".join([head, *blocks, tail])
    return condensed if len(condensed) < len(output) else None


def _failures_and_ids(lines: list[str]) -> tuple[list[list[str]], list[str]]:
    """Each failure as its header and kept lines; the ids of what failed, as pytest's short
    summary gives them (or its verbose lines, when there is no short summary)."""
    failures: list[list[str]] = []
    ids: list[str] = []
    verbose: list[str] = []
    section = ""
    block: list[str] | None = None
    for line in lines:
        if heading := _match(_SECTION, line):
            section, block = heading.group(1).lower(), None
        elif line.startswith("!!!"):  # "!!! Interrupted: 1 error during collection !!!"
            ids.append(line)
        elif section in ("failures", "errors"):
            if test := _match(_TEST, line):
                block = [f"--- {test.group(1)}"]
                failures.append(block)
            elif _match(_CAPTURED, line):
                block = None  # captured output and logs, up to the next test
            elif block is not None and _kept(line):
                block.append(line)
        elif section == "short test summary info":
            if line.startswith(("FAILED", "ERROR")):
                ids.append(line)
        elif _match(_VERBOSE_FAILURE, line):
            verbose.append(line)
    return failures, ids or verbose


def _match(pattern: re.Pattern[str], line: str) -> re.Match[str] | None:
    return pattern.match(line) if len(line) <= _MAX_MATCHED_CHARS else None


def _kept(line: str) -> bool:
    return line.startswith((">", "E ")) or line == "E" or bool(_match(_LOCATION, line))


def _clip(line: str) -> str:
    return line if len(line) <= _MAX_LINE_CHARS else line[:_MAX_LINE_CHARS] + " ..."
