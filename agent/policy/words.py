"""Shell words as the shell would see them: quotes removed, escapes decoded, known variables filled in.

A word is static when every part of it is known before the command runs; otherwise its
`values` is None and only its `pattern` (run-time parts replaced by DYNAMIC) is known.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from tree_sitter import Node

from agent.policy.escapes import (
    decode_ansi_c,
    strip_tabs,
    unescape_double_quoted,
    unescape_heredoc,
    unescape_word,
)
from agent.policy.expansion_values import expanded

# Stands for a part of a word that only exists at run time, in `Word.pattern`.
DYNAMIC = "\x00"
# Past this many alternatives a word is treated as dynamic rather than enumerated.
MAX_VALUES = 64

# Variables the script did not set, whose value is still known to be a place.
# HOME is outside the workspace as far as a model is concerned (it never knows where it is);
# PWD is the current directory, i.e. "." wherever the command runs.
_PLACE_VARIABLES = {"HOME": "~", "PWD": ".", "TMPDIR": "/tmp"}

# mktemp given a template with no directory part but `./`: the name it makes is in the
# current directory (without a template, or with -p/-t, it is under /tmp).
_MKTEMP_IN_PLACE = re.compile(r"\$\(\s*mktemp(?:\s+-[dqu]+)*\s+(?P<template>(?:\./)?[\w.-]*XXX[\w.-]*)\s*\)")
# mktemp with no template, or `-t TEMPLATE`: a new name under $TMPDIR, which commands see as /tmp.
_MKTEMP_IN_TMP = re.compile(r"\$\(\s*mktemp(?:\s+-[dqu]+)*(?:\s+-[dqu]*t\s+(?P<template>[\w.-]*XXX[\w.-]*))?\s*\)")
# Stands for an indirect expansion `${!name}` among the variables a script expands.
INDIRECT = "${!name}"

_EXPANSIONS = {"simple_expansion", "expansion", "command_substitution", "process_substitution", "arithmetic_expansion"}
# `${X:-word}` and friends: the value may be `word`; `:=` also assigns it to X.
_DEFAULT_OPERATORS = {":-", "-", ":=", "=", ":+", "+"}
_ASSIGNING_OPERATORS = {":=", "="}


@dataclass(frozen=True)
class Word:
    raw: str
    values: tuple[str, ...] | None
    pattern: str
    glob: bool = False
    # Static words nested in `${X:-word}`: the value may be one of them.
    hints: tuple[str, ...] = ()

    @staticmethod
    def literal(text: str) -> Word:
        return Word(raw=text, values=(text,), pattern=text)

    @staticmethod
    def unknown(raw: str) -> Word:
        return Word(raw=raw, values=None, pattern=DYNAMIC)

    @property
    def text(self) -> str | None:
        """The value when there is exactly one, else None."""
        return self.values[0] if self.values is not None and len(self.values) == 1 else None

    @property
    def is_static(self) -> bool:
        return self.values is not None


class WordReader:
    """Evaluates word nodes under the variables known at that point of the script.

    `on_code` is called for every command or process substitution met inside a word, so the
    walker analyses the commands hidden there, and returns the substitution's output when
    that is known (`$(echo x)`); `on_variable` is called for every variable expanded.
    """

    def __init__(
        self,
        env: Mapping[str, tuple[str, ...]],
        on_code: Callable[[Node], str | None],
        on_variable: Callable[[str], None],
    ) -> None:
        self._env = env
        self._on_code = on_code
        self._on_variable = on_variable
        # Variables that `${X:=word}` assigns while the word is expanded.
        self.assigned: set[str] = set()

    def word(self, node: Node) -> Word:
        hints: list[str] = []
        parts = self._parts(node, hints)
        return _join(node.text.decode(errors="replace"), parts, hints, glob=_has_glob(node))

    def heredoc(self, body: Node | None, quoted: bool, dedent: bool) -> Word:
        """The text a here-document feeds to its command."""
        if body is None:
            return Word.literal("")
        if quoted:
            text = body.text.decode(errors="replace")
            return Word.literal(strip_tabs(text) if dedent else text)
        hints: list[str] = []
        parts = self._mixed(body, hints, unescape=unescape_heredoc)
        word = _join(body.text.decode(errors="replace"), parts, hints, glob=False)
        if dedent and word.values is not None:
            return Word(word.raw, tuple(strip_tabs(v) for v in word.values), word.pattern)
        return word

    def scan(self, node: Node) -> None:
        """Find the substitutions and variables inside a node that is not itself a word."""
        if node.type in _EXPANSIONS:
            self._part(node, [])
            return
        for child in node.children:
            self.scan(child)

    def _parts(self, node: Node, hints: list[str]) -> list[tuple[str, ...] | None]:
        kind = node.type
        text = node.text.decode(errors="replace")
        if kind == "word":
            return [(unescape_word(text),)]
        if kind in ("number", "extglob_pattern", "variable_name", "regex", "test_operator"):
            return [(text,)]
        if kind == "raw_string":
            return [(text[1:-1],)]
        if kind == "ansi_c_string":
            return [(decode_ansi_c(text[2:-1]),)]
        if kind == "string":
            return self._mixed(node, hints, unescape=unescape_double_quoted)
        if kind == "concatenation":
            return [part for child in node.children for part in self._parts(child, hints)]
        return [self._part(node, hints)]

    def _part(self, node: Node, hints: list[str]) -> tuple[str, ...] | None:
        kind = node.type
        if kind in ("command_substitution", "process_substitution"):
            output = self._on_code(node)
            # `$(pwd)` is the current directory, like $PWD.
            if re.fullmatch(r"\$\(\s*pwd\s*\)|`\s*pwd\s*`", node.text.decode()):
                return (".",)
            # `$(mktemp -d ./tmp.XXXXXX)`: a new name in the workspace, like the template.
            if made := _MKTEMP_IN_PLACE.fullmatch(node.text.decode()):
                return (made.group("template"),)
            if made := _MKTEMP_IN_TMP.fullmatch(node.text.decode()):
                return ("/tmp/" + (made.group("template") or "tmp.XXXXXXXXXX"),)
            # Known output stays a hint (judged as a path), not a value: the command's name or a
            # file it deletes must not hang on `echo` printing what it seems to.
            if output is not None and kind == "command_substitution":
                hints.append(output)
            return None
        if kind == "simple_expansion":
            return self._variable(node.named_children[0].text.decode() if node.named_children else "")
        if kind == "expansion":
            return self._expansion(node, hints)
        # Arithmetic and anything unknown: computed at run time, but may hide substitutions.
        for child in node.children:
            self.scan(child)
        return None

    def _mixed(self, node: Node, hints: list[str], unescape: Callable[[str], str]) -> list[tuple[str, ...] | None]:
        """Parts of a double-quoted string or here-doc body: literal text between expansions."""
        parts: list[tuple[str, ...] | None] = []
        source = node.text
        start, end = node.start_byte, node.end_byte
        if node.type == "string":
            start, end = start + 1, end - 1  # the quotes
        cursor = start
        for child in node.children:
            if child.type not in _EXPANSIONS:
                continue
            if child.start_byte > cursor:
                parts.append((unescape(_slice(source, node, cursor, child.start_byte)),))
            parts.append(self._part(child, hints))
            cursor = child.end_byte
        if end > cursor:
            parts.append((unescape(_slice(source, node, cursor, end)),))
        return parts

    def _variable(self, name: str) -> tuple[str, ...] | None:
        self._on_variable(name)
        if name in self._env:
            return self._env[name]
        if name in _PLACE_VARIABLES:
            return (_PLACE_VARIABLES[name],)
        return None

    def _expansion(self, node: Node, hints: list[str]) -> tuple[str, ...] | None:
        children = node.children
        names = [c.text.decode() for c in children if c.type in ("variable_name", "special_variable_name")]
        operators = {c.type for c in children if not c.is_named} - {"${", "}"}
        if "!" in operators:
            self._on_variable(INDIRECT)  # reads a variable whose name is computed
        if operators & _ASSIGNING_OPERATORS:
            self.assigned.update(names)
        for child in children:
            if child.is_named and child.type not in ("variable_name", "special_variable_name"):
                found = self._parts(child, hints)
                if operators & _DEFAULT_OPERATORS:
                    hints.extend(value for part in found if part is not None for value in part)
        if not operators and len(names) == 1 and len(children) == 3:
            return self._variable(names[0])
        if len(names) == 1 and names[0] in self._env and not operators & (_DEFAULT_OPERATORS | {"!"}):
            # `${F#X}`, `${F:1}`, `${#F}` of a value the script set: computed, so the result is judged.
            self._on_variable(names[0])
            return expanded(self._env[names[0]], node)
        for name in names:
            self._on_variable(name)
        return None


def _join(raw: str, parts: list[tuple[str, ...] | None], hints: list[str], glob: bool) -> Word:
    pattern = "".join(DYNAMIC if part is None else (part[0] if len(part) == 1 else DYNAMIC) for part in parts)
    values: tuple[str, ...] | None = None
    known = [part for part in parts if part is not None]
    if len(known) == len(parts) and math.prod(len(part) for part in known) <= MAX_VALUES:
        values = tuple(dict.fromkeys("".join(combination) for combination in itertools.product(*known)))
    return Word(raw=raw, values=values, pattern=pattern, glob=glob, hints=tuple(hints))


def _slice(source: bytes, node: Node, start: int, end: int) -> str:
    return source[start - node.start_byte : end - node.start_byte].decode(errors="replace")


def _has_glob(node: Node) -> bool:
    """Unquoted, unescaped *, ? or [ anywhere in the word."""
    if node.type == "word":
        return re.search(r"(?<!\\)[*?\[]", node.text.decode(errors="replace")) is not None
    if node.type == "concatenation":
        return any(_has_glob(child) for child in node.children)
    return False
