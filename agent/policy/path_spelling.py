"""Paths spelled to look like other paths: `%2e%2e%2f`, `..\\`, `/etc/passwd` written with
U+2215 division slashes, hidden characters, letters of another script that pass for Latin.

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
    if unicodedata.normalize("NFKC", path) != unicodedata.normalize("NFC", path):
        return "it holds characters that stand for others (compatibility forms), so it is not the path it looks like"
    return None


def spelling_message(path: str, why: str) -> str:
    return f"the path {path!r} is spelled suspiciously: {why}; name workspace files with plain relative paths"


# Scripts whose letters pass for Latin ones (U+0440, Cyrillic er, passes for p; U+03BF, Greek omicron, for o).
_CONFUSABLE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE")


def _script(character: str) -> str | None:
    name = unicodedata.name(character, "")
    if character.isascii():
        return "Latin"
    return next((s.title() for s in _CONFUSABLE_SCRIPTS if name.startswith(s)), None)
