"""Parameter expansions that take apart a variable the script did not set.

`${HOME:0:1}` is `/` on every machine, so `cat ${HOME:0:1}etc${HOME:0:1}passwd` reads
/etc/passwd while its text names no path at all; `${PATH%%:*}`, `${SHELL/bin*/etc}` or
`${HOME^^}` build names the same way. The verifier cannot know these values (they are the
host's, not the script's), so an expansion that slices, trims, replaces or transforms one is
refused as unanalysable. The same operators on the script's own variables are ordinary
(`for f in *.py; do mv "$f" "${f%.py}.txt"; done`) and stay allowed: their values are in the
script, where the walker sees them.
"""

from __future__ import annotations

import re

from tree_sitter import Node

from agent.policy.findings import Finding
from agent.policy.syntax import descendants, parse_tree, text
from agent.policy.words import Word
from contracts.actions import ReasonCode

# Operators that only choose a default: the value is the variable's, or the word written.
_DEFAULTS = {"${", "}", ":-", "-", ":=", "=", ":+", "+", ":?", "?"}
_ASSIGNS = {"variable_assignment": "name", "for_statement": "variable"}
# Builtins that assign the variables named by their arguments.
_ASSIGNING = {"read", "mapfile", "readarray", "getopts", "local", "declare", "typeset", "export", "readonly", "let"}
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# A backslash escape whose code comes from an expansion: `\\$(...)`, `\\x${n}`, `\\0$((...))`.
_CODE_BUILT = re.compile(r"\\+(?:x|u|U|0)?[0-9a-fA-F]{0,3}[$`]")


def taken_apart(source: str, origin: str) -> list[Finding]:
    """A finding for the first expansion that takes apart a variable the script never sets."""
    root = parse_tree(source).root_node
    assigned = _assigned(root)
    for node in descendants(root, "expansion"):
        names = [text(c) for c in node.children if c.type == "variable_name"]
        operators = [c.type for c in node.children if not c.is_named]
        # `${#X}` (a length) and `${!X}` (indirect: handled as a secret read) come first.
        taking = [op for op in operators if op not in _DEFAULTS]
        # Positional parameters are the caller's words, written out where the script is called.
        if names and taking and names[0] not in assigned and not names[0].isdigit():
            shown = text(node)
            message = (
                f"{origin} takes apart ${names[0]} with {shown!r}, so the text it builds is only known "
                "at run time: write the path or command out"
            )
            return [Finding(ReasonCode.UNANALYZABLE_COMMAND, message)]
    return []


def _assigned(root: Node) -> set[str]:
    """Every variable the script may set (over-approximate: a name is enough)."""
    names: set[str] = set()
    for kind, field in _ASSIGNS.items():
        for node in descendants(root, kind):
            names.add(text(node.child_by_field_name(field)))
    for node in descendants(root, "c_style_for_statement"):
        names.update(_IDENTIFIER.findall(text(node)))
    for node in descendants(root, "declaration_command"):
        names.update(_IDENTIFIER.findall(text(node)))
    for node in descendants(root, "command"):
        words = [text(c) for c in node.named_children]
        if words and words[0] in _ASSIGNING:
            names.update(w for w in words[1:] if _IDENTIFIER.fullmatch(w))
    return names


def built_characters(name: str, args: tuple[Word, ...]) -> list[Finding]:
    """`printf "\\$(printf %o 47)"` prints `/`: an escape whose code is computed at run time
    builds any character, and with it any path or command, out of the verifier's sight."""
    if name not in ("printf", "echo") or not args:
        return []
    spelled = args[0] if name == "printf" else next((a for a in args if not (a.text or "").startswith("-")), args[0])
    if spelled.values is None and "\\" in spelled.raw and _CODE_BUILT.search(spelled.raw):
        message = f"`{name}` builds characters from codes computed at run time ({spelled.raw!r}): write the text out"
        return [Finding(ReasonCode.UNANALYZABLE_COMMAND, message)]
    return []
