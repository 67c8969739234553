"""Backslash escapes, decoded the way the shell (and printf) decode them."""

from __future__ import annotations

import re


def unescape_word(text: str) -> str:
    # Unquoted: a backslash quotes the next character; backslash-newline joins lines.
    return re.sub(r"\\(.)", r"\1", text.replace("\\\n", ""), flags=re.DOTALL)


def unescape_double_quoted(text: str) -> str:
    return re.sub(r"\\([$`\"\\])", r"\1", text.replace("\\\n", ""))


def unescape_heredoc(text: str) -> str:
    return re.sub(r"\\([$`\\])", r"\1", text.replace("\\\n", ""))


def strip_tabs(text: str) -> str:
    return "\n".join(line.lstrip("\t") for line in text.split("\n"))


_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_SIMPLE_ESCAPES |= {"v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?"}
_ANSI_C = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.DOTALL)


def decode_ansi_c(body: str) -> str:
    """$'...' escapes, as bash decodes them (\\x72 is "r"); unknown escapes stay as they are."""

    def decode(match: re.Match[str]) -> str:
        escape = match.group(1)
        if escape[0] in "xuU" and len(escape) > 1:
            return chr(min(int(escape[1:], 16), 0x10FFFF))
        if escape[0] in "01234567":
            return chr(int(escape, 8))
        if escape[0] == "c" and len(escape) == 2:
            return chr(ord(escape[1].upper()) ^ 0x40)
        return _SIMPLE_ESCAPES.get(escape, "\\" + escape)

    return _ANSI_C.sub(decode, body)


def decode_echo(text: str) -> str:
    """What `printf`/dash's `echo` print for backslash escapes in their arguments (`\\0NNN` is octal)."""
    return decode_ansi_c(re.sub(r"\\0([0-7]{0,3})", lambda m: "\\" + (m.group(1) or "0"), text))
