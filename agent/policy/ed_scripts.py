"""ed scripts (`printf ',s/a/b/\\nw\\n' | ed -s f`, a here-doc fed to `ed`), read for the shell
commands they run: `!cmd`, `r !cmd`, `e !cmd`, and `w !cmd` (which pipes the buffer to cmd).

Text added by `a`, `i` and `c` is data up to its `.` line, never a command.
"""

from __future__ import annotations

import re

from agent.policy.script_text import Translation, shell
from agent.policy.words import Word

_ADDRESS = re.compile(r"""(?:[\s0-9.$,;+\-^%]|'[a-z]|/(?:[^/\\\n]|\\.)*/?|\?(?:[^?\\\n]|\\.)*\??)*""")
_FILE_COMMANDS = {"r", "e", "E", "w", "W", "wq", "f"}


def read_ed(text: str, origin: str) -> Translation:
    result = Translation()
    adding = False
    for line in text.split("\n"):
        if adding:
            adding = line != "."
            continue
        adding = _command(line, origin, result)
    return result


def _command(line: str, origin: str, result: Translation) -> bool:
    """Judge one command line; True when it starts text input (`a`, `i`, `c`)."""
    command = line[_ADDRESS.match(line).end() :]  # type: ignore[union-attr]
    if command.startswith("!"):
        result.codes.append(shell(command[1:], f"`!` in {origin}"))
        return False
    if command in ("a", "i", "c"):
        return True
    name = re.match(r"wq|[A-Za-z]?", command).group()  # type: ignore[union-attr]
    argument = command[len(name) :].lstrip()
    if name in ("g", "G", "v", "V") and argument:
        end = 1
        while end < len(argument) and argument[end] != argument[0]:
            end += 2 if argument[end] == "\\" else 1
        _command(argument[end + 1 :], origin, result)
    elif name in _FILE_COMMANDS and argument.startswith("!"):
        result.codes.append(shell(argument[1:], f"`{name} !` in {origin}", piped=name in ("w", "W", "wq")))
    elif name in _FILE_COMMANDS and argument:
        result.files.append(Word.literal(argument))
        if name in ("w", "W", "wq"):
            result.writes.append(Word.literal(argument))
    return False
