"""Paths spelled to look like other paths: `%2e%2e%2f`, `..\\`, `/etc/passwd` written with
U+2215 division slashes, hidden characters, letters of another script that pass for Latin,
combining marks on Latin letters (`.git` + U+0338), characters that normalise to others (the
Kelvin sign for `K`) and spellings that composing (NFC) changes.

On POSIX none of these is a separator: `..%2f..%2fetc` is a file name in the workspace, and so
is `a` U+2215 `b`. They are refused all the same, by name: a file tool has no use for them, and
a model that sends one is either attacked (a prompt injection testing decoders further along)
or confused, and is better told so than left to create `..%2fetc` in the workspace.
"""

from __future__ import annotations

import re
import unicodedata

# Percent-encoding of any byte (`%2e`, `%2F`, `%00`, `%c0%af`): a URL's spelling, not a file's.
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
# Characters that look like `/`, `\` or `.` without being them.
_LOOK_ALIKES = {
    "\u2215": "division slash", "\u2044": "fraction slash", "\uff0f": "fullwidth solidus",
    "\u29f8": "big solidus", "\u2571": "box-drawing diagonal", "\u1735": "philippine single punctuation",
    "\u30fb": "katakana middle dot", "\uff3c": "fullwidth reverse solidus", "\u29f5": "reverse solidus operator",
    "\ufe68": "small reverse solidus", "\u2216": "set minus", "\uff0e": "fullwidth full stop",
    "\u2024": "one dot leader", "\u2025": "two dot leader", "\ufe52": "small full stop",
    "\u3002": "ideographic full stop",
}  # fmt: skip


def suspicious_spelling(path: str) -> str | None:
    """Why the path's spelling is suspicious, or None when it is an ordinary path."""
    if found := _PERCENT.search(path):
        return f"it holds the percent-encoding {found.group()!r}"
    if "\\" in path:
        return "it holds a backslash, which is not a separator here"
    for character in path:
        if character in _LOOK_ALIKES:
            return (
                f"it holds U+{ord(character):04X} ({_LOOK_ALIKES[character]}), which only looks like a separator or dot"
            )
        category = unicodedata.category(character)
        if category in ("Cc", "Cf"):  # control characters; zero-width and bidirectional marks
            return f"it holds the invisible character U+{ord(character):04X}"
    # Within one run of letters: `документ.md` is a Russian name with an ordinary extension.
    for part in re.split(r"[/._ -]", path):
        if len(scripts := {_script(c) for c in part if c.isalpha()} - {None}) > 1:
            return f"its name {part!r} mixes {' and '.join(sorted(scripts))} letters that look alike"
    if why := _unusual_composition(path):
        return why
    if unicodedata.normalize("NFKC", path) != unicodedata.normalize("NFC", path):
        return "it holds characters that stand for others (compatibility forms), so it is not the path it looks like"
    return None


def _unusual_composition(path: str) -> str | None:
    """Characters that stand for others, combining marks where no word puts them, and spellings
    that composing (NFC) changes.

    A mark on an ASCII or other Latin letter is either a decomposed accent (`e` + U+0301, which
    has a precomposed `é` that names the same visible file) or a mark no Latin-alphabet word puts
    there (`.git` + U+0338, `setup.py` + U+0301 on the `p`): both make a second name that passes
    for the first. A mark with no letter under it (at the start of a name, on `.` or `/`) is the
    same trick. Marks on the letters of the scripts that are written with them (Devanagari,
    Arabic, Hebrew, Thai) and a variation selector on an emoji are ordinary text.
    """
    for character in path:
        composed = unicodedata.normalize("NFC", character)
        if composed != character and not _is_mark(character):
            name = unicodedata.name(character, "?").lower()
            return f"it holds U+{ord(character):04X} ({name}), which stands for {composed!r}"
    base = ""
    for character in path:
        if not _is_mark(character):
            base = character
            continue
        if base in ("", "/") or not (_letter_of_marked_script(base) or unicodedata.category(base) == "So"):
            plain = "".join(c for c in path if not _is_mark(c))
            composed = unicodedata.normalize("NFC", path)
            if composed != path and not any(_is_mark(c) for c in composed):
                return (
                    "it spells an accented letter as a letter and a combining mark: write it precomposed, "
                    f"{composed!r}, or without the mark, {plain!r}"
                )
            under = f"on {base!r}" if base not in ("", "/") else "with no letter under it"
            mark = unicodedata.name(character, "?").lower()
            return f"it puts U+{ord(character):04X} ({mark}) {under}, so it passes for {plain!r}"
    if unicodedata.normalize("NFC", path) != path:
        return f"it is not in composed form (NFC): write it as {unicodedata.normalize('NFC', path)!r}"
    return None


def _letter_of_marked_script(character: str) -> bool:
    """A letter of a script written with combining marks: not Latin (ASCII or accented)."""
    return unicodedata.category(character).startswith("L") and _script(character) != "Latin"


def _is_mark(character: str) -> bool:
    return unicodedata.category(character).startswith("M")


def spelling_message(path: str, why: str) -> str:
    return f"the path {path!r} is spelled suspiciously: {why}; name workspace files with plain relative paths"


# Scripts whose letters pass for Latin ones (U+0440, Cyrillic er, passes for p; U+03BF, Greek omicron, for o).
_CONFUSABLE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE")


def _script(character: str) -> str | None:
    name = unicodedata.name(character, "")
    if character.isascii():
        return "Latin"
    return next((s.title() for s in _CONFUSABLE_SCRIPTS if name.startswith(s)), None)
