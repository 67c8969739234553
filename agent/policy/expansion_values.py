"""The value of `${X#pat}`, `${X:1}`, `${X/a/b}`, `${X^^}` when X's value is known.

The script's own variables are known to the walker (`F=X/etc/passwd`); the operators that
trim, slice, replace or change case are computed here as the shell would, so the path they
build (`cat "${F#X}"` reads /etc/passwd) is judged like any written path. An operator this
module does not compute gives None: the word is then only known at run time.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from tree_sitter import Node

# Longer values are not worth the quadratic pattern search; they stay unknown.
_MAX_LENGTH = 512
_TRIMS = {"#", "##", "%", "%%"}
_REPLACES = {"/", "//", "/#", "/%"}
_CASES = {"^^": str.upper, ",,": str.lower, "^": lambda v: v[:1].upper() + v[1:], ",": lambda v: v[:1].lower() + v[1:]}


def expanded(values: tuple[str, ...], node: Node) -> tuple[str, ...] | None:
    """Each value after the expansion's operator, or None when one is not computed here."""
    results = []
    for value in values:
        result = _one(value, node.children) if len(value) <= _MAX_LENGTH else None
        if result is None:
            return None
        results.append(result)
    return tuple(dict.fromkeys(results))


def _one(value: str, children: list[Node]) -> str | None:
    kinds = [c.type for c in children]
    if kinds == ["${", "#", "variable_name", "}"]:
        return str(len(value))  # `${#X}`: the length
    if kinds[:2] != ["${", "variable_name"] or kinds[-1] != "}":
        return None
    rest = children[2:-1]
    if not rest:
        return value
    operator = rest[0].type
    operands = [_text(c) for c in rest[1:]]
    if any(o is None for o in operands):
        return None
    texts = [o for o in operands if o is not None]
    if operator in _TRIMS and len(texts) == 1:
        return _trim(value, operator, texts[0])
    if operator in _REPLACES:
        pattern, replacement = [*texts, ""][0], (texts[2] if len(texts) > 2 else "")
        if len(texts) not in (1, 2, 3) or (len(texts) >= 2 and texts[1] != "/"):
            return None
        return _replace(value, operator, pattern, replacement)
    if operator in _CASES and not texts:
        return _CASES[operator](value)
    if operator == ":" and rest[1:] and all(c.type in ("number", ":") for c in rest[1:]):
        if texts[:1] == [":"]:
            texts = ["0", *texts]  # `${X::2}`: an empty offset is 0
        if len(texts) == 1:
            return _slice(value, int(texts[0]))
        if len(texts) == 3 and texts[1] == ":":
            return _slice(value, int(texts[0]), int(texts[2]))
        return None
    return None


def _text(node: Node) -> str | None:
    text = node.text.decode(errors="replace") if node.text is not None else ""
    if node.type in ("regex", "word", "number", "/", ":") and not any(ch in text for ch in "$`\\\"'"):
        return text
    return None


def _trim(value: str, operator: str, pattern: str) -> str:
    cuts = range(len(value) + 1)
    if operator == "#":
        return next((value[i:] for i in cuts if fnmatchcase(value[:i], pattern)), value)
    if operator == "##":
        return next((value[i:] for i in reversed(cuts) if fnmatchcase(value[:i], pattern)), value)
    if operator == "%":
        return next((value[:i] for i in reversed(cuts) if fnmatchcase(value[i:], pattern)), value)
    return next((value[:i] for i in cuts if fnmatchcase(value[i:], pattern)), value)


def _replace(value: str, operator: str, pattern: str, replacement: str) -> str:
    if not pattern:
        return value
    if operator == "/#":
        return next(
            (replacement + value[i:] for i in range(len(value), -1, -1) if fnmatchcase(value[:i], pattern)), value
        )
    if operator == "/%":
        return next((value[:i] + replacement for i in range(len(value) + 1) if fnmatchcase(value[i:], pattern)), value)
    out, start = [], 0
    while start <= len(value):
        end = next((e for e in range(len(value), start, -1) if fnmatchcase(value[start:e], pattern)), None)
        if end is None:
            if start < len(value):
                out.append(value[start])
            start += 1
            continue
        out.append(replacement)
        if operator == "/":
            return "".join(out) + value[end:]
        start = end
    return "".join(out)


def _slice(value: str, offset: int, length: int | None = None) -> str:
    start = offset if offset >= 0 else max(len(value) + offset, 0)
    if length is None:
        return value[start:]
    end = start + length if length >= 0 else len(value) + length
    return value[start:end] if end >= start else ""
