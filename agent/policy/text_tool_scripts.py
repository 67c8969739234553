"""Scripts of small text tools that can run commands: dc (`!cmd`) and m4 (`syscmd(cmd)`,
`esyscmd(cmd)`). What they run is shell code; the rest is arithmetic or text."""

from __future__ import annotations

import re

from agent.policy.script_text import Translation, shell

_M4_COMMAND = re.compile(r"\be?syscmd\(\s*`?([^)']*)'?\s*\)")


def read_dc(text: str, origin: str) -> Translation:
    # dc runs the rest of a line after `!` (other than the comparisons `!<`, `!>`, `!=`).
    commands = [m.group(1) for m in re.finditer(r"!(?![<>=])([^\n]*)", text)]
    return Translation(codes=[shell(c, f"`!` in {origin}") for c in commands])


def read_m4(text: str, origin: str) -> Translation:
    return Translation(codes=[shell(c, f"`syscmd` in {origin}") for c in _M4_COMMAND.findall(text)])
