"""The text a command puts into a file, when the command line shows it.

`echo` and `printf` print their words (printf through its format, as the shell's printf
would, with `%s` filled in and escapes expanded); `cat`, `tee` and `dd` pass on a here-doc or
the known output of an earlier stage. An in-place edit (`sed -i`, `perl -pi -e`) writes what
its script inserts: the replacement of a substitution, the text of `a`, `i` and `c`. That
text is what a file-writing rule judges, as the file tools' rule judges `replace_in_file`'s
`new` text. None: the text is not known.
"""

from __future__ import annotations

import re

from agent.policy.shell_model import Stdin
from agent.policy.words import Word

_ECHO_FLAGS = re.compile(r"-[neE]+")
_CONVERSION = re.compile(r"%(%|[-+ #0]*\d*(?:\.\d+)?[sbdiouxXcfeEgGq])")
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|0?[0-7]{1,3}|.)", re.DOTALL)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
# A perl substitution, any delimiter: the replacement is group 3.
_SUBSTITUTE = re.compile(r"s(.)((?:\\.|(?!\1).)*)\1((?:\\.|(?!\1).)*)\1", re.DOTALL)
# A sed address (`3`, `$`, `/re/`, a range of them, `!`) before a command.
_ADDRESS = re.compile(r"[\s;{}]*(?:(?:\d+|\$|/(?:\\.|[^/\n])*/I?)(?:\s*,\s*(?:\d+|\$|/(?:\\.|[^/\n])*/I?))?\s*!?\s*)?")


def printed(name: str, args: tuple[Word, ...], stdin: Stdin | None) -> str | None:
    """What `echo`/`printf` print, or what `cat`/`tee`/`dd` pass on from a here-doc or a known stage."""
    if name in ("echo", "printf"):
        if any(a.text is None for a in args):
            return None
        texts = [a.text or "" for a in args]
        return _echo(texts) if name == "echo" else _printf(texts)
    if name in ("cat", "tee", "dd") and stdin is not None and stdin.kind == "text":
        return stdin.word.text
    return None


def inserted(name: str, args: tuple[Word, ...]) -> str | None:
    """What an in-place `sed` or `perl` script inserts, or None when the script is not known."""
    texts = [a.text for a in args]
    if any(t is None for t in texts):
        return None
    words = [t or "" for t in texts]
    scripts = _scripts(name, words)
    if not scripts:
        return None
    parts: list[str] = []
    for script in scripts:
        if name == "perl":
            replacements = [_unescape(m.group(3)) for m in _SUBSTITUTE.finditer(script)]
            parts.extend(replacements or [script])  # other code: what it writes is the code's to say
        else:
            parts.extend(_sed_inserts(script))
    return "\n".join(parts)


def _sed_inserts(script: str) -> list[str]:
    """The text each command of a sed script puts in: `s`'s replacement, `a`/`i`/`c`'s text,
    and, for a command this does not know, the command itself."""
    found = []
    position = 0
    while position < len(script):
        position = _ADDRESS.match(script, position).end()  # type: ignore[union-attr]  # matches empty
        if position >= len(script):
            break
        command = script[position]
        if command in "sy" and position + 1 < len(script):
            delimiter = script[position + 1]
            pieces, position = _delimited(script, position + 2, delimiter, 2)
            if command == "s" and len(pieces) == 2:
                found.append(_unescape(pieces[1]))
            while position < len(script) and script[position] not in ";\n}":
                position += 1  # flags
        elif command in "aic":
            end = script.find("\n", position)
            while end != -1 and script[end - 1] == "\\":  # a text line ending in \ goes on
                end = script.find("\n", end + 1)
            end = len(script) if end == -1 else end
            found.append(_unescape(re.sub(r"^[aic]\\?\s?", "", script[position:end])))
            position = end
        else:
            end = min(
                (i for i in (script.find(";", position), script.find("\n", position)) if i != -1), default=len(script)
            )
            found.append(script[position:end])
            position = end + 1
    return found


def _delimited(text: str, position: int, delimiter: str, count: int) -> tuple[list[str], int]:
    """`count` pieces each ended by an unescaped `delimiter`, and where the last one ended."""
    pieces = []
    current = []
    while position < len(text) and len(pieces) < count:
        char = text[position]
        if char == "\\" and position + 1 < len(text):
            current.append(text[position : position + 2])
            position += 2
            continue
        if char == delimiter:
            pieces.append("".join(current))
            current = []
        else:
            current.append(char)
        position += 1
    return pieces, position


def _scripts(name: str, words: list[str]) -> list[str]:
    """The scripts given with `-e`/`--expression` (or perl's `-e`), else sed's first operand."""
    scripts = []
    first_operand = None
    index = 0
    while index < len(words):
        word = words[index]
        if word in ("-e", "--expression") or (name == "perl" and re.fullmatch(r"-[a-zA-Z]*e", word)):
            if index + 1 < len(words):
                scripts.append(words[index + 1])
            index += 2
            continue
        if word.startswith("--expression="):
            scripts.append(word.split("=", 1)[1])
        elif word.startswith("-e") and name == "sed" and len(word) > 2:
            scripts.append(word[2:])
        elif not word.startswith("-") and first_operand is None:
            first_operand = word
        index += 1
    if not scripts and first_operand is not None and name != "perl":
        scripts.append(first_operand)
    return scripts


def _echo(texts: list[str]) -> str:
    while texts and _ECHO_FLAGS.fullmatch(texts[0]):
        texts = texts[1:]
    # dash's echo (the /bin/sh here) expands escapes with or without -e.
    return _unescape(" ".join(texts)) + "\n"


def _printf(texts: list[str]) -> str:
    if not texts:
        return ""
    form, values = _unescape(texts[0]), texts[1:]
    out = []
    while True:
        filled, used = _fill(form, values)
        out.append(filled)
        values = values[used:]
        # printf reuses its format while values are left (and a format without any stops).
        if not values or used == 0:
            return "".join(out)


def _fill(form: str, values: list[str]) -> tuple[str, int]:
    """The format with its conversions filled from `values`, and how many it took."""
    used = 0

    def one(match: re.Match[str]) -> str:
        nonlocal used
        if match.group(1) == "%":
            return "%"
        value = values[used] if used < len(values) else ""
        used += 1
        return _unescape(value) if match.group(1).endswith("b") else value

    return _CONVERSION.sub(one, form), used


def _unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] == "x" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code[0].isdigit():
            return chr(int(code, 8) & 0xFF)
        return _SIMPLE_ESCAPES.get(code, code)

    return _ESCAPE.sub(one, text)
